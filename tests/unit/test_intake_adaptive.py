"""The dialog adapts: the gate first, then the engine's most informative question given the
answers so far; the numbering says how many questions at most, and a full dialog asks
exactly what the engine's simulation (the figure in docs/scoring.md) says it asks."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.intake.dialog import Turn, advance, start
from bot.intake.questions import load_questionnaire
from knowledge.recommend.profile import FIELD_VALUES, UNKNOWN
from knowledge.recommend.questioning import next_field
from knowledge.recommend.recommender import recommend, shipped_engine

Q = load_questionnaire()
ENGINE = shipped_engine()
TPU_READY = {
    "stage": "production", "architecture_changes": "rarely", "custom_kernels": "none", "framework": "jax",
    "team_expertise": "xla", "cloud": "google_cloud", "workload": "training", "scale": "massive",
    "data_pipeline": "keeps_up", "priority": "cost_at_scale", "optimization_time": "weeks",
}


def number_of(field: str, value: str) -> str:
    """The option number a person would type for ``value``."""
    return str(Q.by_field(field).values().index(value) + 1)


def answer_as(profile: dict[str, str], turn: Turn, decline: bool = True) -> Turn:
    """Answer every question from ``profile`` by option number; decline or accept the offer."""
    while not turn.finished:
        if turn.state.offered:
            turn = advance(turn.state, "no" if decline else "yes")
            continue
        field = turn.state.current
        assert field is not None
        turn = advance(turn.state, number_of(field, profile[field]))
    return turn


def test_the_gate_is_asked_first_with_an_honest_number() -> None:
    turn = start()
    assert turn.state.current == "cloud"
    assert turn.text.startswith("Question 1 (at most 11): Where must the work run?")
    assert "1/11" not in turn.text


def test_the_order_follows_the_answers() -> None:
    """A TPU-ready team on Google Cloud and the same team on AWS are asked different things."""
    on_gcp = answer_as(TPU_READY, start())
    assert on_gcp.state.asked == ["cloud", "scale", "custom_kernels", "framework", "architecture_changes",
                                  "optimization_time", "data_pipeline", "stage"]
    on_aws = answer_as({**TPU_READY, "cloud": "other_single_cloud"}, start())
    # (under the priors of rules/priors.toml, the same seven questions as under uniform priors,
    # with the workload last: it only decides once the rest leave the fit on the edge)
    assert on_aws.state.asked == ["cloud", "scale", "optimization_time", "framework", "architecture_changes",
                                  "custom_kernels", "workload"]
    assert recommend(on_gcp.state.profile()).recommendation == "tpu"
    assert recommend(on_aws.state.profile()).recommendation == "gpu_then_tpu"


def test_every_next_question_is_the_head_of_the_engines_ranking() -> None:
    turn = advance(start().state, "gcp")
    seen = []
    while turn.state.current is not None:
        field = turn.state.current
        assert ENGINE.question_ranking(turn.state.known())[0] == field
        seen.append(field)
        turn = advance(turn.state, number_of(field, TPU_READY[field]))
    assert seen and "Question 2 (at most 11)" not in turn.text


def test_a_skipped_question_is_not_asked_again_and_the_next_best_follows() -> None:
    after_gate = advance(start().state, "gcp")
    assert after_gate.state.current == "scale"
    skipped = advance(after_gate.state, "skip")
    assert skipped.state.answers["scale"] == UNKNOWN
    assert skipped.state.current == next_field(ENGINE, skipped.state.known(), skipped.state.asked)
    assert skipped.state.current not in ("cloud", "scale")
    assert skipped.text.startswith("scale: Not sure\nQuestion 3 (at most 11): ")


def test_the_number_counts_down_when_an_answer_states_another_field() -> None:
    turn = advance(start().state, "AWS, and we use PyTorch")
    assert turn.state.volunteered == {"framework": "cloud"}
    # 1 asked + 9 left (framework is known): the next is question 2 of at most 10.
    assert "Question 2 (at most 10): " in turn.text


def test_the_last_possible_question_says_so() -> None:
    turn = start()
    for _ in range(10):
        turn = advance(turn.state, "skip")
    assert turn.state.current is not None and len(turn.state.asked) == 10
    assert "Question 11 (the last one): " in turn.text
    done = advance(turn.state, "skip")
    assert done.finished and "Done after 11 questions. Your answers:" in done.text
    assert "not asked" not in done.text  # everything was asked, nothing to list


@settings(max_examples=60, deadline=None)
@given(st.fixed_dictionaries({f: st.sampled_from([v for v in vs if v != UNKNOWN]) for f, vs in FIELD_VALUES.items()}))
def test_the_dialog_asks_what_the_engine_simulation_counts(profile: dict[str, str]) -> None:
    """The figure in docs/scoring.md is about this dialog: same questions, same verdict."""
    expected: dict[str, str] = {}
    while (f := next_field(ENGINE, expected, expected)) is not None:
        expected[f] = profile[f]
    done = answer_as(profile, start())
    assert done.state.asked == list(expected)
    assert recommend(done.state.profile()).recommendation == ENGINE.decide(profile).kind

"""The intake dialog's mechanics: answers by number, value or synonym; skip, back,
restart, cancel, help; unusable input re-asks briefly; no input can crash it or leave a
state that does not survive JSON. Also the questions data file and its validation.
(Adaptivity, settling, free text and the store have their own test files.)"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.intake.dialog import MAX_ANSWER_CHARS, IntakeState, advance, resume, start
from bot.intake.questions import QUESTIONS_FILE, load_questionnaire, parse_questions
from common.errors import QuestionnaireError
from knowledge.recommend.profile import FIELD_VALUES, UNKNOWN

Q = load_questionnaire()


def at(field: str, answers: dict[str, str] | None = None) -> IntakeState:
    """A dialog on ``field``'s question, after ``answers`` (asked in that order)."""
    answers = answers or {}
    return IntakeState(asked=list(answers), current=field, answers=answers)


def test_questions_cover_the_profile_in_contract_order() -> None:
    assert Q.fields == tuple(FIELD_VALUES)
    for question in Q.questions:
        assert question.prompt.endswith("?") and question.help
        assert set(question.values()) == set(FIELD_VALUES[question.field]) - {UNKNOWN}


@pytest.mark.parametrize(
    ("field", "text", "value"),
    [
        ("framework", "1", "pytorch"),
        ("framework", "pytorch", "pytorch"),
        ("framework", "torch", "pytorch"),
        ("framework", "PyTorch 2", "pytorch"),
        ("framework", "  PyTorch 2.3  ", "pytorch"),
        ("framework", "TF", "tensorflow"),
        ("framework", "Keras", "tensorflow"),
        ("framework", "jax 0.4.30", "jax"),
        ("framework", "Flax", "jax"),
        ("cloud", "GCP", "google_cloud"),
        ("cloud", "On-Prem", "on_prem"),
        ("cloud", "on_prem", "on_prem"),
        ("cloud", "AWS", "other_single_cloud"),
        ("cloud", "multi-cloud", "multi_cloud"),
        ("cloud", "4", "on_prem"),
        ("cloud", "4.", "on_prem"),
        ("cloud", " 2) ", "other_single_cloud"),
        ("custom_kernels", "Critical", "critical"),
        ("custom_kernels", "custom CUDA", "critical"),
        ("data_pipeline", "can't keep up", "cannot_keep_up"),
        ("data_pipeline", "cannot_keep_up", "cannot_keep_up"),
        ("data_pipeline", "yes", "keeps_up"),
        ("priority", "cost at scale", "cost_at_scale"),
        ("scale", "pods", "massive"),
        ("stage", "Production: a stable model, run at scale", "production"),
        ("optimization_time", "Weeks", "weeks"),
    ],
)
def test_answers_by_number_value_label_or_synonym(field: str, text: str, value: str) -> None:
    before = {"cloud": "google_cloud"} if field != "cloud" else {}
    turn = advance(at(field, before), text)
    assert turn.event in ("answered", "offer", "done")
    assert turn.state.answers[field] == value
    assert turn.state.asked == [*before, field]
    assert turn.state.current != field
    assert turn.text.startswith(f"{field}: {Q.by_field(field).label_of(value)}")


@pytest.mark.parametrize("text", ["skip", "Not sure", "not sure!", "unknown", "idk", "?"])
def test_skip_and_not_sure_record_unknown(text: str) -> None:
    turn = advance(at("cloud"), text)
    assert turn.event == "skipped"
    assert turn.state.answers["cloud"] == UNKNOWN and turn.state.asked == ["cloud"]
    assert turn.state.current not in (None, "cloud")


def test_an_unlisted_not_sure_phrase_is_not_guessed() -> None:
    turn = advance(at("cloud"), "I don't know")
    assert turn.event == "invalid" and turn.state.asked == [] and "cloud" not in turn.state.answers


@pytest.mark.parametrize("text", ["", "   ", "7", "0", "-1", "banana", "gpu please", "1.5", "\x00\x1b[31m"])
def test_unusable_answer_reasks_briefly_then_in_full(text: str) -> None:
    state = at("framework", {"cloud": "google_cloud"})
    turn = advance(state, text)
    assert turn.event == "invalid"
    assert turn.state.current == "framework" and turn.state.asked == ["cloud"]
    assert turn.state.answers == {"cloud": "google_cloud"}
    assert turn.state.misses == 1
    assert "\x1b" not in turn.text  # control characters are shown escaped, never raw
    # A one-line hint, not the whole numbered list again.
    assert len(turn.text.splitlines()) == 2
    assert "Which framework does the team use? 1 PyTorch, 2 JAX, 3 TensorFlow, 4 Something else" in turn.text
    third = advance(advance(turn.state, text).state, text)
    assert third.state.misses == 3
    for i, option in enumerate(Q.by_field("framework").options, start=1):
        assert f"{i}. {option.label}" in third.text


def test_back_returns_to_the_previous_question_and_keeps_its_answer() -> None:
    first = start()
    second = advance(first.state, "gcp")
    third = advance(second.state, "massive")
    back = advance(third.state, "back")
    assert back.event == "back" and back.state.current == second.state.current == "scale"
    assert back.state.asked == ["cloud"]
    assert "current answer: Massive" in back.text
    changed = advance(back.state, "single")
    assert changed.state.answers["scale"] == "single_device" and changed.state.asked == ["cloud", "scale"]


def test_back_on_the_first_question_stays_there() -> None:
    turn = advance(start().state, "back")
    assert turn.state.current == "cloud" and turn.state.asked == []
    assert turn.text.startswith("Already at the first question.")


def test_restart_clears_everything_and_cancel_ends() -> None:
    state = advance(advance(start().state, "1").state, "2").state
    restarted = advance(state, "restart")
    assert restarted.event == "restart" and restarted.state == start().state
    cancelled = advance(state, "cancel")
    assert cancelled.cancelled and cancelled.state.answers == state.answers
    # A finished or cancelled dialog refuses answers but accepts restart.
    assert advance(cancelled.state, "1").event == "invalid"
    assert advance(cancelled.state, "restart").state == start().state


def test_help_explains_the_question_without_moving() -> None:
    state = at("data_pipeline", {"cloud": "google_cloud"})
    turn = advance(state, "help")
    assert turn.event == "help" and turn.state == state
    assert "utilization challenge" in turn.text and "1. No, input is already a bottleneck" in turn.text


def test_state_round_trips_through_json_and_resume_reshows_the_question() -> None:
    state = advance(advance(start().state, "1").state, "skip").state
    again = IntakeState.model_validate_json(state.model_dump_json())
    assert again == state
    shown = resume(again)
    assert shown.state == again and shown.text.startswith("Question 3 (at most 11): ")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=2 * MAX_ANSWER_CHARS),
                          st.sampled_from(["1", "2", "3", "skip", "back", "yes", "no", "8 GPUs", "AWS and PyTorch"])),
                max_size=30))
def test_no_input_sequence_crashes_or_corrupts_the_state(lines: list[str]) -> None:
    turn = start()
    for line in lines:
        turn = advance(turn.state, line)
        state = turn.state
        assert IntakeState.model_validate_json(state.model_dump_json()) == state
        for field, value in state.answers.items():
            assert value in FIELD_VALUES[field]
        if state.status == "asking":
            assert (state.current is None) == state.offered
        if turn.finished:
            turn.state.profile()  # always a valid profile
            break
        if turn.cancelled:
            break


GOOD_TOML = QUESTIONS_FILE.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ('field = "stage"', 'field = "stages"', "no question for field(s) stage"),
        ('{ value = "jax", label = "JAX"', '{ value = "mxnet", label = "JAX"', "must be exactly"),
        ('synonyms = ["torch", ', 'synonyms = ["tf", "torch", ', "'tf' is ambiguous"),
        ('synonyms = ["torch", ', 'synonyms = ["2", "torch", ', "bare number"),
        ('synonyms = ["torch", ', 'synonyms = ["skip", "torch", ', "also a dialog command"),
        ('back = ["back",', 'back = ["skip", "back",', "means both 'skip' and 'back'"),
        ("[unknown]", "[unknwn]", "unknown: Field required"),
        ('no = ["no",', 'no = ["yes", "no",', "means both yes and no"),
        ('no = ["no",', 'no = ["cancel", "no",', "dialog command"),
    ],
)
def test_broken_questions_file_is_refused(old: str, new: str, expected: str) -> None:
    assert old in GOOD_TOML
    with pytest.raises(QuestionnaireError) as info:
        parse_questions(GOOD_TOML.replace(old, new, 1), origin="q.toml")
    assert expected in info.value.one_line() and "q.toml" in info.value.one_line()


def test_a_said_not_measured_pipeline_is_not_asked_again_but_any_other_unknown_is() -> None:
    """"We never profiled the loaders" answers the data-pipeline question (its options include
    "we do not know"); an unknown cloud from the conversation is no answer and is still asked."""
    turn = start(given={"data_pipeline": (UNKNOWN, "never profiled the loaders"), "cloud": (UNKNOWN, "somewhere")})
    assert turn.state.given == {"data_pipeline": "never profiled the loaders"}
    assert "data_pipeline" not in turn.state.remaining() and "cloud" in turn.state.remaining()
    assert 'data_pipeline = ' in turn.text and "never profiled the loaders" in turn.text

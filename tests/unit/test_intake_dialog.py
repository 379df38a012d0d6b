"""The intake dialog: answers by number, value or synonym; skip, back, restart, cancel,
help; invalid input re-asks with the options; no input can crash it. Also the
questions data file and its validation."""

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
    """A dialog positioned on ``field``'s question."""
    return IntakeState(position=Q.fields.index(field), answers=answers or {})


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
    turn = advance(at(field), text)
    assert turn.event in ("answered", "done")
    assert turn.state.answers[field] == value
    assert turn.state.position == Q.fields.index(field) + 1


@pytest.mark.parametrize("text", ["skip", "Not sure", "not sure!", "unknown", "I don't know", "idk", "?"])
def test_skip_and_not_sure_record_unknown(text: str) -> None:
    if text == "I don't know":
        # Not a listed phrase: it must re-ask rather than guess.
        assert advance(at("cloud"), text).event == "invalid"
        return
    turn = advance(at("cloud"), text)
    assert turn.event == "skipped"
    assert turn.state.answers["cloud"] == UNKNOWN
    assert turn.state.position == Q.fields.index("cloud") + 1


@pytest.mark.parametrize("text", ["", "   ", "7", "0", "-1", "banana", "gpu please", "1.5", "\x00\x1b[31m"])
def test_invalid_answer_reasks_the_same_question_with_its_options(text: str) -> None:
    state = at("framework", {"stage": "production"})
    turn = advance(state, text)
    assert turn.event == "invalid"
    assert turn.state.position == state.position
    assert turn.state.answers == {"stage": "production"}
    assert turn.state.misses == 1
    assert "Which framework does the team use?" in turn.text
    for i, option in enumerate(Q.by_field("framework").options, start=1):
        assert f"{i}. {option.label}" in turn.text
    assert "\x1b" not in turn.text  # control characters are shown escaped, never raw


def test_back_returns_to_the_previous_question_and_keeps_its_answer() -> None:
    turn = start()
    turn = advance(turn.state, "1")
    turn = advance(turn.state, "rarely")
    assert turn.state.position == 2
    back = advance(turn.state, "back")
    assert back.event == "back" and back.state.position == 1
    assert "current answer: Rarely" in back.text
    changed = advance(back.state, "often")
    assert changed.state.answers["architecture_changes"] == "often"
    assert changed.state.position == 2


def test_back_on_the_first_question_stays_there() -> None:
    turn = advance(start().state, "back")
    assert turn.state.position == 0 and "Already at the first question" in turn.text


def test_restart_clears_everything_and_cancel_ends() -> None:
    state = advance(advance(start().state, "1").state, "2").state
    restarted = advance(state, "restart")
    assert restarted.event == "restart" and restarted.state == IntakeState()
    cancelled = advance(state, "cancel")
    assert cancelled.cancelled and cancelled.state.answers == state.answers
    # A finished or cancelled dialog refuses answers but accepts restart.
    assert advance(cancelled.state, "1").event == "invalid"
    assert advance(cancelled.state, "restart").state == IntakeState()


def test_help_explains_the_question_without_moving() -> None:
    turn = advance(at("data_pipeline"), "help")
    assert turn.event == "help" and turn.state.position == Q.fields.index("data_pipeline")
    assert "utilization challenge" in turn.text


def test_a_whole_dialog_yields_the_profile() -> None:
    answers = ["exploration", "often", "none", "PyTorch 2", "cuda", "gcp", "train", "massive", "skip", "cost", "weeks"]
    turn = start()
    for text in answers:
        turn = advance(turn.state, text)
    assert turn.finished and turn.event == "done"
    assert "All questions answered" in turn.text and "data_pipeline: Not sure" in turn.text
    profile = turn.state.profile()
    assert profile.framework == "pytorch" and profile.cloud == "google_cloud"
    assert profile.data_pipeline == UNKNOWN
    assert profile.unknown_fields() == ["data_pipeline"]


def test_state_round_trips_through_json_and_resume_reshows_the_question() -> None:
    state = advance(advance(start().state, "2").state, "skip").state
    again = IntakeState.model_validate_json(state.model_dump_json())
    assert again == state
    shown = resume(again)
    assert shown.state == again and shown.text.startswith("Question 3/11")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=2 * MAX_ANSWER_CHARS), max_size=30))
def test_no_input_sequence_crashes_or_corrupts_the_state(lines: list[str]) -> None:
    turn = start()
    for line in lines:
        turn = advance(turn.state, line)
        state = turn.state
        assert 0 <= state.position <= len(Q.questions)
        for field, value in state.answers.items():
            assert value in FIELD_VALUES[field]
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
    ],
)
def test_broken_questions_file_is_refused(old: str, new: str, expected: str) -> None:
    assert old in GOOD_TOML
    with pytest.raises(QuestionnaireError) as info:
        parse_questions(GOOD_TOML.replace(old, new, 1), origin="q.toml")
    assert expected in info.value.one_line() and "q.toml" in info.value.one_line()

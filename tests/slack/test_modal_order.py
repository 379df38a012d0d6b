"""The intake modal cannot adapt per answer, so its inputs follow the engine's a-priori order:
the gate first, then the engine's ranking of the empty profile. That order is read from the
engine, and it is the order the terminal dialog starts in; parsing does not depend on it."""

from __future__ import annotations

from bot.intake.dialog import advance, start
from bot.intake.questions import load_questionnaire
from bot.slack.modal import intake_view, modal_order, parse_submission
from knowledge.recommend.profile import FIELD_VALUES, parse_profile
from knowledge.recommend.questioning import gate_fields
from knowledge.recommend.recommender import shipped_engine
from tests.harness.slack_requests import select_state

ENGINE = shipped_engine()


def _input_fields(view: dict) -> list[str]:
    return [b["element"]["action_id"] for b in view["blocks"] if b["type"] == "input"]


def test_the_modal_asks_the_gate_first_then_the_engines_ranking() -> None:
    fields = _input_fields(intake_view("C1"))
    assert fields[0] == "cloud" and gate_fields(ENGINE) == ("cloud",)
    ranked = [f for f in ENGINE.question_ranking({}) if f != "cloud"]
    assert fields[1 : 1 + len(ranked)] == ranked
    assert sorted(fields) == sorted(FIELD_VALUES)  # every question once
    assert fields != list(FIELD_VALUES)  # not the file's contract order
    assert [q.field for q in modal_order(load_questionnaire())] == fields


def test_the_modal_starts_where_the_dialog_starts() -> None:
    fields = _input_fields(intake_view("C1"))
    first = start()
    assert first.state.current == fields[0]
    # With nothing known but a Google Cloud answer, the dialog's next question is the modal's second.
    assert advance(first.state, "gcp").state.current == fields[1]


def test_prefill_and_parsing_are_unchanged_by_the_order() -> None:
    profile = parse_profile({"cloud": "google_cloud", "scale": "massive", "framework": "jax"})
    view = intake_view("C1", initial=profile)
    chosen = {b["element"]["action_id"]: b["element"].get("initial_option", {}).get("value")
              for b in view["blocks"] if b["type"] == "input"}
    assert chosen["cloud"] == "google_cloud" and chosen["scale"] == "massive" and chosen["stage"] == "unknown"
    answers = {f: chosen[f] for f in reversed(list(chosen))}  # submitted in any order
    parsed, errors = parse_submission({"state": {"values": select_state(answers)}})
    assert errors == {} and parsed == profile

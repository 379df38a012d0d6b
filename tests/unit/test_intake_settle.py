"""Settle and offer: once no answer left can change the verdict, the dialog says so and offers
the rest; "no" gets the recommendation now, "yes" asks the rest (a-priori order) and then
finishes; back, skip, help and cancel keep working at the offer, and it survives JSON."""

from __future__ import annotations

from bot.intake.dialog import IntakeState, Turn, advance, resume, start
from knowledge.recommend.profile import UNKNOWN
from knowledge.recommend.questioning import intake_order, settled_verdict
from knowledge.recommend.recommender import recommend, shipped_engine

ENGINE = shipped_engine()


def on_prem() -> Turn:
    return advance(start().state, "on prem")


def test_the_gate_settles_it_and_the_dialog_says_so() -> None:
    turn = on_prem()
    assert turn.event == "offer" and turn.state.offered and turn.state.current is None
    assert turn.text == (
        "cloud: On-premises (our own data center)\n"
        "Your answers already settle it: GPU. 10 questions skipped; answer them anyway? (yes/no)"
    )
    assert settled_verdict(ENGINE, turn.state.known()) == "gpu"


def test_no_gets_the_recommendation_now() -> None:
    done = advance(on_prem().state, "no")
    assert done.finished and done.state.asked == ["cloud"]
    assert "Done after 1 question. Your answers:\n  cloud: On-premises (our own data center)" in done.text
    assert "not asked: stage, architecture_changes" in done.text
    rec = recommend(done.state.profile())
    assert rec.recommendation == "gpu" and rec.confidence == 1.0 and rec.next_questions == []


def test_yes_asks_the_rest_in_order_then_finishes_without_offering_again() -> None:
    turn = advance(on_prem().state, "yes")
    assert turn.state.everything and not turn.state.offered
    assert turn.text.startswith("Question 2 (at most 11): ")
    asked = []
    while not turn.finished:
        assert not turn.state.offered
        asked.append(turn.state.current)
        turn = advance(turn.state, "1")
    assert asked == [f for f in intake_order(ENGINE) if f != "cloud"]
    assert len(turn.state.asked) == 11 and "Done after 11 questions." in turn.text
    assert recommend(turn.state.profile()).recommendation == "gpu"


def test_skip_at_the_offer_means_no_and_other_words_are_re_asked() -> None:
    assert advance(on_prem().state, "skip").finished
    unclear = advance(on_prem().state, "maybe later")
    assert unclear.event == "invalid" and unclear.state.offered and unclear.state.misses == 1
    assert unclear.text.startswith("Please answer yes or no.\nYour answers already settle it: GPU.")


def test_help_back_and_cancel_at_the_offer() -> None:
    offer = on_prem()
    helped = advance(offer.state, "help")
    assert helped.state == offer.state and "cannot change the verdict" in helped.text
    back = advance(offer.state, "back")
    assert back.event == "back" and back.state.current == "cloud" and back.state.asked == []
    assert "current answer: On-premises" in back.text and not back.state.offered
    moved = advance(back.state, "gcp")
    assert moved.state.current == "scale" and not moved.state.offered
    assert advance(offer.state, "cancel").cancelled


def test_a_stop_left_open_by_skipped_questions_is_not_called_settled() -> None:
    turn = start()
    for line in ["1", "skip", "2", "skip", "skip", "3", "2", "3"]:
        turn = advance(turn.state, line)
    assert turn.event == "offer"
    assert settled_verdict(ENGINE, turn.state.known()) is None
    assert turn.text.endswith(
        "None of the 3 questions left can change the verdict on its own; what you skipped keeps it open "
        "(GPU for now). Answer them anyway? (yes/no)"
    )
    assert UNKNOWN in turn.state.known().values()


def test_the_offer_survives_json_and_resumes_exactly() -> None:
    offer = on_prem()
    again = IntakeState.model_validate_json(offer.state.model_dump_json())
    assert again == offer.state
    shown = resume(again)
    assert shown.state == again
    assert shown.text == "Your answers already settle it: GPU. 10 questions skipped; answer them anyway? (yes/no)"
    assert advance(again, "no").finished

"""The intake modal's submission: errors keep the modal open; a valid one sends a cited recommendation."""

from __future__ import annotations

import json

from bot.slack.recommend_blocks import KIND_NAMES
from knowledge.recommend.profile import FIELD_VALUES, parse_profile
from knowledge.recommend.recommender import recommend
from tests.harness.profiles import TPU_FRIENDLY
from tests.harness.slack_requests import select_state, view_submission
from tests.slack.conftest import RunningBot, block_texts, blocks_of


def _recommendation_text(bot: RunningBot) -> tuple[dict, str]:
    post = bot.fake.wait_for("chat.postMessage")[0]
    return post.body, "\n".join(block_texts(blocks_of(post.body)))


def test_a_valid_submission_closes_the_modal_and_sends_the_recommendation(bot: RunningBot) -> None:
    reply = bot.sender.interactive(view_submission(select_state(TPU_FRIENDLY), user="UASKER01"))
    assert reply.status == 200 and reply.body == ""  # an empty ack closes the modal

    body, text = _recommendation_text(bot)
    assert body["channel"] == "UASKER01"  # sent to the person, as a DM from the app
    expected = recommend(parse_profile(TPU_FRIENDLY))
    assert f"Recommendation: {KIND_NAMES[expected.recommendation]}" in text
    verdict = KIND_NAMES[expected.recommendation]
    assert f"*Why {verdict}*" in text
    for reason in expected.reasons:
        assert reason.sentence in text and reason.role in text
        for label in reason.citations:
            assert label in text
    # reasons read in words, never as a points ledger, and those against the verdict stand apart
    assert "fit +" not in text and "blocker:" not in text
    against = [r for r in expected.reasons if r.direction == "against"]
    if against:
        head = text.index("*What argues against it*")
        assert all(text.index(r.sentence) > head for r in against)
        assert all(text.index(r.sentence) < head for r in expected.reasons if r.direction == "for")
    assert "*What would change this*" in text
    for caveat in expected.caveats:
        assert caveat.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") in text
    sources = [b for b in blocks_of(body) if b.get("block_id") == "hwbot_sources"]
    assert sources, "the recommendation lists its sources"
    assert len(blocks_of(body)) <= 50


def test_an_all_not_sure_submission_is_valid(bot: RunningBot) -> None:
    answers = {field: "unknown" for field in FIELD_VALUES}
    reply = bot.sender.interactive(view_submission(select_state(answers)))
    assert reply.body == ""
    _, text = _recommendation_text(bot)
    assert "Recommendation:" in text and "Not sure about" in text


def test_an_invalid_submission_gets_errors_and_nothing_is_sent(bot: RunningBot) -> None:
    answers = dict(TPU_FRIENDLY)
    answers["cloud"] = "mars"  # not an option (a stale or hand-made payload)
    del answers["stage"]  # nothing chosen
    reply = bot.sender.interactive(view_submission(select_state(answers)))
    assert reply.status == 200
    data = reply.json()
    assert data["response_action"] == "errors"
    assert set(data["errors"]) == {"q_cloud", "q_stage"}
    assert "not one of the options" in data["errors"]["q_cloud"]
    assert "Not sure" in data["errors"]["q_stage"]
    bot.wait_idle()
    assert bot.fake.calls("chat.postMessage") == []


def test_recommend_end_to_end_from_the_slash_command_to_the_message(bot: RunningBot) -> None:
    bot.sender.command("recommend", channel="CGENERAL1")
    view = bot.fake.wait_for("views.open")[0].body["view"]
    # Fill in the modal Slack showed: the first real option of every question.
    answers = {}
    for block in view["blocks"]:
        if block["type"] == "input":
            answers[block["element"]["action_id"]] = block["element"]["options"][0]["value"]
    submission = view_submission(select_state(answers))
    submission["view"]["private_metadata"] = view["private_metadata"]
    assert json.loads(view["private_metadata"]) == {"channel": "CGENERAL1"}
    assert bot.sender.interactive(submission).body == ""
    _, text = _recommendation_text(bot)
    expected = recommend(parse_profile(answers))
    assert f"Recommendation: {KIND_NAMES[expected.recommendation]}" in text

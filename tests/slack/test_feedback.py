"""Helpful / Not helpful clicks are stored in SQLite and the message thanks the person."""

from __future__ import annotations

import re
import sqlite3

from bot.slack.blocks import ACTION_HELPFUL, ACTION_NOT_HELPFUL, FEEDBACK_BLOCK_ID
from tests.harness.slack_app import RunningBot, block_texts, blocks_of
from tests.harness.slack_requests import block_action, mention

QUESTION = "Why did GPUs become the default accelerator?"


def _answered(bot: RunningBot) -> tuple[dict, str, dict]:
    """Ask via a mention; return (the posted message as Slack would echo it, answer id, post body)."""
    bot.sender.event(mention(QUESTION))
    post = bot.fake.wait_for("chat.postMessage")[0]
    blocks = blocks_of(post.body)
    actions = next(b for b in blocks if b.get("block_id") == FEEDBACK_BLOCK_ID)
    answer_id = actions["elements"][0]["value"]
    echoed = {"type": "message", "ts": post.response["ts"], "text": post.body["text"], "blocks": blocks, "user": "UHWBOT01"}
    return echoed, answer_id, post.body


def test_a_helpful_click_is_stored_and_the_message_thanks_the_user(bot: RunningBot, qa) -> None:
    message, answer_id, _ = _answered(bot)
    payload = block_action(action_id=ACTION_HELPFUL, value=answer_id, channel="CGENERAL1", message=message, user="UVOTER01")
    reply = bot.sender.interactive(payload)
    assert reply.status == 200

    update = bot.fake.wait_for("chat.update")[0].body
    assert update["channel"] == "CGENERAL1" and update["ts"] == message["ts"]
    new_blocks = update["blocks"]
    assert not [b for b in new_blocks if b["type"] == "actions"], "buttons should be gone"
    assert any("Thanks for the feedback" in t and "*helpful*" in t for t in block_texts(new_blocks))
    assert any(b.get("block_id") == "hwbot_sources" for b in new_blocks), "the rest of the answer stays"

    votes = bot.services.feedback.votes()
    assert len(votes) == 1
    vote = votes[0]
    expected = qa.ask(QUESTION)
    assert vote.helpful is True
    assert vote.question == expected.question
    assert vote.answer == expected.answer
    assert vote.citations == [c.label for c in expected.citations]
    assert re.fullmatch(r"[0-9a-f]{64}", vote.user_hash)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", vote.created_at)

    # On disk, in SQLite, and the raw user id appears nowhere in the file.
    db = bot.services.settings.feedback_db
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT question, answer, citations, helpful, user_hash, created_at FROM feedback").fetchall()
    assert len(rows) == 1 and rows[0][3] == 1
    assert b"UVOTER01" not in db.read_bytes()


def test_a_second_click_changes_the_vote_instead_of_adding_one(bot: RunningBot) -> None:
    message, answer_id, _ = _answered(bot)
    for action in (ACTION_HELPFUL, ACTION_NOT_HELPFUL):
        bot.sender.interactive(block_action(action_id=action, value=answer_id, channel="CGENERAL1", message=message))
        bot.wait_idle()
    votes = bot.services.feedback.votes()
    assert len(votes) == 1 and votes[0].helpful is False
    last_update = bot.fake.calls("chat.update", ok_only=True)[-1].body
    assert any("*not helpful*" in t for t in block_texts(last_update["blocks"]))


def test_different_people_are_counted_separately(bot: RunningBot) -> None:
    message, answer_id, _ = _answered(bot)
    for user in ("UVOTER01", "UVOTER02"):
        bot.sender.interactive(block_action(action_id=ACTION_HELPFUL, value=answer_id, channel="CGENERAL1", message=message, user=user))
        bot.wait_idle()
    hashes = {v.user_hash for v in bot.services.feedback.votes()}
    assert len(hashes) == 2


def test_feedback_on_an_ephemeral_answer_is_updated_through_the_response_url(bot: RunningBot) -> None:
    message, answer_id, _ = _answered(bot)
    hook = bot.fake.webhook_url("ephemeral1")
    payload = block_action(
        action_id=ACTION_NOT_HELPFUL, value=answer_id, channel="CGENERAL1", message=message, response_url=hook, ephemeral=True
    )
    bot.sender.interactive(payload)
    body = bot.fake.wait_for("response_url")[0].body
    assert body["replace_original"] is True
    assert any("*not helpful*" in t for t in block_texts(body["blocks"]))
    assert bot.fake.calls("chat.update") == []
    assert len(bot.services.feedback.votes()) == 1


def test_a_click_on_an_unknown_answer_stores_nothing(bot: RunningBot) -> None:
    message, _, _ = _answered(bot)
    hook = bot.fake.webhook_url("old1")
    bot.sender.interactive(
        block_action(action_id=ACTION_HELPFUL, value="0" * 32, channel="CGENERAL1", message=message, response_url=hook)
    )
    body = bot.fake.wait_for("response_url")[0].body
    assert "too old" in body["text"]
    assert bot.services.feedback.votes() == []
    assert bot.fake.calls("chat.update") == []

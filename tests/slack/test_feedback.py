"""Helpful / Not helpful clicks are stored in SQLite and the message thanks the person."""

from __future__ import annotations

import json
import re
import sqlite3

from bot.slack.blocks import ACTION_HELPFUL, ACTION_NOT_HELPFUL, FEEDBACK_BLOCK_ID
from bot.slack.origin import ELSEWHERE
from tests.harness.slack_requests import block_action, mention
from tests.slack.conftest import RunningBot, block_texts, blocks_of

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

    votes = bot.runtime.feedback.votes()
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
    db = bot.runtime.feedback.state.path
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT value FROM kv WHERE ns = 'vote'").fetchall()
    assert len(rows) == 1 and json.loads(rows[0][0])["helpful"] is True
    assert b"UVOTER01" not in db.read_bytes()


def test_a_second_click_changes_the_vote_instead_of_adding_one(bot: RunningBot) -> None:
    message, answer_id, _ = _answered(bot)
    for action in (ACTION_HELPFUL, ACTION_NOT_HELPFUL):
        bot.sender.interactive(block_action(action_id=action, value=answer_id, channel="CGENERAL1", message=message))
        bot.wait_idle()
    votes = bot.runtime.feedback.votes()
    assert len(votes) == 1 and votes[0].helpful is False
    last_update = bot.fake.calls("chat.update", ok_only=True)[-1].body
    assert any("*not helpful*" in t for t in block_texts(last_update["blocks"]))


def test_different_people_are_counted_separately(bot: RunningBot) -> None:
    message, answer_id, _ = _answered(bot)
    for user in ("UVOTER01", "UVOTER02"):
        bot.sender.interactive(block_action(action_id=ACTION_HELPFUL, value=answer_id, channel="CGENERAL1", message=message, user=user))
        bot.wait_idle()
    hashes = {v.user_hash for v in bot.runtime.feedback.votes()}
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
    assert len(bot.runtime.feedback.votes()) == 1


def test_a_click_on_an_unknown_answer_stores_nothing(bot: RunningBot) -> None:
    message, _, _ = _answered(bot)
    hook = bot.fake.webhook_url("old1")
    bot.sender.interactive(
        block_action(action_id=ACTION_HELPFUL, value="0" * 32, channel="CGENERAL1", message=message, response_url=hook)
    )
    body = bot.fake.wait_for("response_url")[0].body
    assert "too old" in body["text"]
    assert bot.runtime.feedback.votes() == []
    assert bot.fake.calls("chat.update") == []


def test_not_helpful_opens_the_reason_modal_and_the_reason_is_stored_and_reported(bot: RunningBot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import subprocess

    from bot.slack.modal import FEEDBACK_CALLBACK_ID
    from tests.harness.workers import HWBOT

    message, answer_id, _ = _answered(bot)
    bot.sender.interactive(block_action(action_id=ACTION_NOT_HELPFUL, value=answer_id, channel="CGENERAL1", message=message))
    view = bot.fake.wait_for("views.open")[0].body["view"]
    assert view["callback_id"] == FEEDBACK_CALLBACK_ID
    options = [o["value"] for o in view["blocks"][0]["element"]["options"]]
    assert options == ["wrong", "not_covered", "outdated", "other"]
    submitted = {
        "type": "view_submission", "team": {"id": "THWTEAM1"}, "user": {"id": "UASKER01", "team_id": "THWTEAM1"},
        "view": {"id": "V2", "type": "modal", "callback_id": FEEDBACK_CALLBACK_ID, "private_metadata": view["private_metadata"],
                 "state": {"values": {
                     "fb_reason": {"reason": {"type": "radio_buttons", "selected_option": {"value": "outdated"}}},
                     "fb_comment": {"comment": {"type": "plain_text_input", "value": "TPU v5 is out <!channel>"}}}}},
    }
    assert bot.sender.interactive(submitted).status == 200
    bot.wait_idle()
    (vote,) = bot.runtime.feedback.votes()
    assert vote.helpful is False and vote.reason == "outdated" and vote.comment == "TPU v5 is out <!channel>"

    import os

    env = {k: v for k, v in os.environ.items() if k != "HWBOT_REDIS_URL"}
    env["HWBOT_FEEDBACK_DB"] = str(bot.runtime.feedback.state.path)
    out = subprocess.run([HWBOT, "feedback", "--json"], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    (entry,) = report["down_voted"]
    assert entry["question"] == QUESTION and entry["reasons"] == {"outdated": 1} and entry["comments"] == ["TPU v5 is out <!channel>"]
    markdown = subprocess.run([HWBOT, "feedback", "--since", "2000-01-01"], env=env, capture_output=True, text=True, timeout=60)
    assert QUESTION in markdown.stdout and "outdated ×1" in markdown.stdout
    bad = subprocess.run([HWBOT, "feedback", "--since", "yesterday"], env=env, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr


def test_a_declined_answer_offers_ask_the_experts_which_posts_once_with_a_link_back(start_bot) -> None:  # type: ignore[no-untyped-def]
    from bot.slack.blocks import ACTION_ESCALATE

    bot = start_bot(escalation="CEXPERTS1")
    bot.sender.event(mention("What is the best pizza topping in Naples?"))
    post = bot.fake.wait_for("chat.postMessage")[0]
    actions = next(b for b in blocks_of(post.body) if b.get("block_id") == FEEDBACK_BLOCK_ID)
    escalate = [e for e in actions["elements"] if e["action_id"] == ACTION_ESCALATE]
    assert escalate, "a declined answer offers the experts"
    echoed = {"type": "message", "ts": post.response["ts"], "blocks": blocks_of(post.body)}
    hook = bot.fake.webhook_url("esc")
    click = block_action(action_id=ACTION_ESCALATE, value=escalate[0]["value"], channel="CGENERAL1", message=echoed, response_url=hook)
    bot.sender.interactive(click)
    bot.sender.interactive(click)  # a second click does not post twice
    bot.fake.wait_for("response_url", 2)
    bot.wait_idle()
    posts = [c.body for c in bot.fake.calls("chat.postMessage", ok_only=True) if c.body["channel"] == "CEXPERTS1"]
    assert len(posts) == 1
    text = "\n".join(block_texts(posts[0]["blocks"]))
    assert "pizza topping" in text and "https://hwbot-test.example/archives/CGENERAL1/p" in text


def test_a_click_from_another_conversation_changes_nothing(bot: RunningBot) -> None:
    message, answer_id, _ = _answered(bot)
    hook = bot.fake.webhook_url("elsewhere1")
    elsewhere = dict(message, ts="1699999999.000777")
    for payload in (
        block_action(action_id=ACTION_HELPFUL, value=answer_id, channel="COTHER001", message=message, response_url=hook),
        block_action(action_id=ACTION_NOT_HELPFUL, value=answer_id, channel="CGENERAL1", message=elsewhere, response_url=hook),
    ):
        assert bot.sender.interactive(payload).status == 200
    notes = bot.fake.wait_for("response_url", 2)
    bot.wait_idle()
    assert {c.body["text"] for c in notes} == {ELSEWHERE} and all(c.body["response_type"] == "ephemeral" for c in notes)
    assert bot.runtime.feedback.votes() == []
    assert bot.fake.calls("chat.update") == [] and bot.fake.calls("views.open") == []


def test_an_unbound_origin_is_settled_only_by_its_own_person_clicking_from_a_message() -> None:
    from bot.slack.origin import Origin

    unbound = Origin(channel="C1", user="U1")

    def click(user: str, channel: str = "C1", ts: str = "1.2", ephemeral: bool = False) -> dict:
        return {"user": {"id": user}, "container": {"channel_id": channel, "message_ts": ts, "is_ephemeral": ephemeral}}

    assert unbound.settled(click("U1")).ts == "1.2" and unbound.settled(click("U1")).allows(click("U1"), same_user=True)
    for other in (click("U2"), click("U1", channel="C2"), click("U1", ephemeral=True), click("U1", ts="")):
        assert unbound.settled(other) == unbound
    bound = Origin(channel="C1", ts="9.9", user="U1")
    assert bound.settled(click("U1")) == bound  # a stored binding is never overridden by a click


def test_another_persons_click_that_beats_the_binding_waits_for_it(bot: RunningBot, qa) -> None:
    """Anyone may rate an answer, so a voter's click that arrives before the message's ts is stored
    waits for the posting worker's binding instead of trusting the ts the click names."""
    import threading

    answer_id = bot.runtime.feedback.remember(qa.ask(QUESTION), channel="CRACE002", user="UASKER01")  # posted, not yet bound
    message = {"ts": "1700000000.000200", "blocks": []}
    binder = threading.Timer(0.3, lambda: bot.runtime.feedback.bind(answer_id, "CRACE002", message["ts"]))
    binder.start()
    payload = block_action(action_id=ACTION_HELPFUL, value=answer_id, channel="CRACE002", message=message, user="UVOTER01")
    assert bot.sender.interactive(payload).status == 200
    update = bot.fake.wait_for("chat.update")[0].body
    binder.join()
    assert update["channel"] == "CRACE002" and update["ts"] == message["ts"]
    assert any("Thanks for the feedback" in t for t in block_texts(update["blocks"]))

"""A mention in a channel gets a cited answer in its thread; follow-ups there need no mention."""

from __future__ import annotations

import re

from bot.slack.blocks import ACTION_HELPFUL, ACTION_NOT_HELPFUL, FEEDBACK_BLOCK_ID
from bot.slack.mrkdwn import escape
from tests.harness.fake_slack import BOT_USER_ID
from tests.harness.slack_app import RunningBot, block_texts, blocks_of
from tests.harness.slack_requests import mention, message

LABEL = re.compile(r"\[file_gpu\d{3}:c\d{4}\] \S+\.md p\d+-\d+")
QUESTION = "When is a TPU a better choice than a GPU?"


def test_mention_is_answered_in_its_thread_with_sources_and_buttons(bot: RunningBot, qa) -> None:
    event = mention(QUESTION)
    reply = bot.sender.event(event)
    assert reply.status == 200

    post = bot.fake.wait_for("chat.postMessage")[0]
    body = post.body
    assert body["channel"] == "CGENERAL1"
    assert body["thread_ts"] == event["ts"]
    assert body["unfurl_links"] is False and body["unfurl_media"] is False
    # The HTTP ack came back before the answer was posted: the work ran in the background.
    assert reply.received_at <= post.at

    expected = qa.ask(QUESTION)
    assert not expected.declined
    blocks = blocks_of(body)
    texts = block_texts(blocks)
    sources = [b for b in blocks if b.get("block_id") == "hwbot_sources"]
    assert sources, "no Sources context"
    source_text = "\n".join(block_texts(sources))
    assert source_text.startswith("*Sources*")
    assert [escape(c.label) for c in expected.citations] == LABEL.findall(source_text)
    first_sentence = expected.sentences[0].text
    assert any(escape(first_sentence) in t for t in texts), "the engine's answer is not in the message"
    assert all(len(t) <= 3000 for t in texts) and len(blocks) <= 50

    actions = [b for b in blocks if b.get("block_id") == FEEDBACK_BLOCK_ID]
    assert len(actions) == 1
    assert [e["action_id"] for e in actions[0]["elements"]] == [ACTION_HELPFUL, ACTION_NOT_HELPFUL]


def test_working_reaction_is_added_before_and_removed_after_the_answer(bot: RunningBot) -> None:
    event = mention(QUESTION)
    bot.sender.event(event)
    removed = bot.fake.wait_for("reactions.remove")[0]
    added = bot.fake.calls("reactions.add", ok_only=True)[0]
    post = bot.fake.calls("chat.postMessage", ok_only=True)[0]
    for call in (added, removed):
        assert call.body["name"] == "eyes"
        assert call.body["timestamp"] == event["ts"] and call.body["channel"] == event["channel"]
    assert added.at <= post.at <= removed.at


def test_follow_up_in_an_answered_thread_needs_no_mention(bot: RunningBot) -> None:
    first = mention(QUESTION)
    bot.sender.event(first)
    bot.fake.wait_for("chat.postMessage")
    bot.wait_idle()  # the thread is recorded as answered once the post has returned

    follow_up = message("And what about the cost of TPUs at scale?", channel="CGENERAL1", thread_ts=first["ts"])
    bot.sender.event(follow_up)
    posts = bot.fake.wait_for("chat.postMessage", 2)
    assert posts[1].body["thread_ts"] == first["ts"]
    assert any(b.get("block_id") == "hwbot_sources" for b in blocks_of(posts[1].body))

    # Chatter elsewhere (top level, or another thread) is not for the bot.
    bot.sender.event(message("lunch anyone?", channel="CGENERAL1"))
    bot.sender.event(message("what is a TPU?", channel="CGENERAL1", thread_ts="1690000000.999999"))
    bot.wait_idle()
    assert len(bot.fake.calls("chat.postMessage")) == 2


def test_a_follow_up_that_mentions_the_bot_is_answered_once(bot: RunningBot) -> None:
    first = mention(QUESTION)
    bot.sender.event(first)
    bot.fake.wait_for("chat.postMessage")
    # Slack sends both an app_mention and a message event for this one message.
    twin = mention("does JAX run on both?", thread_ts=first["ts"])
    as_message = message(twin["text"], channel="CGENERAL1", ts=twin["ts"], thread_ts=first["ts"])
    bot.sender.event(as_message)
    bot.sender.event(twin)
    bot.wait_idle()
    assert len(bot.fake.calls("chat.postMessage", ok_only=True)) == 2


def test_own_messages_other_bots_edits_and_deletes_are_ignored(bot: RunningBot) -> None:
    first = mention(QUESTION)
    bot.sender.event(first)
    bot.fake.wait_for("chat.postMessage")
    thread = first["ts"]
    ignored = [
        message("my own answer", channel="CGENERAL1", user=BOT_USER_ID, thread_ts=thread),
        message("another bot", channel="CGENERAL1", user="UOTHERBOT", thread_ts=thread, bot_id="BOTHER01"),
        message("", channel="CGENERAL1", user=None, thread_ts=thread, subtype="message_changed",
                message={"text": "edited: what is a TPU?", "user": "UASKER01", "ts": thread}),
        message("", channel="CGENERAL1", user=None, thread_ts=thread, subtype="message_deleted", deleted_ts=thread),
        message("bot text", channel="CGENERAL1", user=None, thread_ts=thread, subtype="bot_message", bot_id="BOTHER01"),
        message("what is a TPU?", channel="DDIRECT01", channel_type="im", user=BOT_USER_ID),
    ]
    for event in ignored:
        assert bot.sender.event(event).status == 200
    bot.wait_idle()
    assert len(bot.fake.calls("chat.postMessage")) == 1


def test_question_outside_the_notes_is_declined_and_points_to_recommend(bot: RunningBot) -> None:
    bot.sender.event(mention("What is the capital of France?"))
    body = bot.fake.wait_for("chat.postMessage")[0].body
    blocks = blocks_of(body)
    text = "\n".join(block_texts(blocks))
    assert "do not cover" in text
    assert "/hwbot recommend" in text
    assert not [b for b in blocks if b.get("block_id") == "hwbot_sources"]


def test_a_bare_mention_gets_a_hint_instead_of_an_answer(bot: RunningBot) -> None:
    event = mention("")
    bot.sender.event(event)
    body = bot.fake.wait_for("chat.postMessage")[0].body
    text = "\n".join(block_texts(blocks_of(body)))
    assert "/hwbot recommend" in text and body["thread_ts"] == event["ts"]
    assert not bot.fake.calls("reactions.add")

"""Slack's assistant pane: suggested prompts, a status while working, a title, the same answers."""

from __future__ import annotations

import pytest

from bot.slack.assistant import ACTION_OPEN_INTAKE, SUGGESTED_PROMPTS
from tests.harness.slack_requests import block_action, message, next_ts
from tests.slack.conftest import RunningBot, block_texts, blocks_of

DM = "DASSIST01"


def test_a_new_assistant_thread_gets_the_suggested_prompts(bot: RunningBot) -> None:
    thread = next_ts()
    event = {"type": "assistant_thread_started", "event_ts": thread,
             "assistant_thread": {"user_id": "UASKER01", "channel_id": DM, "thread_ts": thread, "context": {}}}
    assert bot.sender.event(event).status == 200
    call = bot.fake.wait_for("assistant.threads.setSuggestedPrompts")[0].body
    assert call["channel_id"] == DM and call["thread_ts"] == thread
    assert [p["message"] for p in call["prompts"]] == list(SUGGESTED_PROMPTS)


def test_a_question_in_the_pane_sets_status_and_title_and_is_answered_in_the_thread(bot: RunningBot) -> None:
    thread = next_ts()
    bot.sender.event(message("Why would a TPU sit idle?", channel=DM, channel_type="im", thread_ts=thread))
    post = bot.fake.wait_for("chat.postMessage")[0].body
    assert post["channel"] == DM and post["thread_ts"] == thread
    assert any(b.get("block_id") == "hwbot_sources" for b in blocks_of(post))  # the same cited answer as anywhere
    status = bot.fake.wait_for("assistant.threads.setStatus")[0]
    assert status.body["thread_ts"] == thread and status.body["status"]
    assert bot.fake.calls("assistant.threads.setTitle")[0].body["title"] == "Why would a TPU sit idle?"
    assert status.at <= bot.fake.calls("chat.postMessage")[0].at
    bot.wait_idle()
    assert len(bot.fake.calls("chat.postMessage")) == 1


def test_start_a_recommendation_offers_the_intake_form(bot: RunningBot) -> None:
    thread = next_ts()
    bot.sender.event(message("Start a recommendation", channel=DM, channel_type="im", thread_ts=thread))
    post = bot.fake.wait_for("chat.postMessage")[0].body
    button = next(b for b in blocks_of(post) if b["type"] == "actions")["elements"][0]
    assert button["action_id"] == ACTION_OPEN_INTAKE
    click = block_action(action_id=ACTION_OPEN_INTAKE, value="intake", channel=DM, message={"ts": "1700000000.000001", "blocks": []})
    assert bot.sender.interactive(click).status == 200
    view = bot.fake.wait_for("views.open")[0].body["view"]
    assert view["callback_id"] == "hwbot_intake"
    assert "recommendation" in " ".join(block_texts(blocks_of(post))).lower()


@pytest.mark.parametrize("text, title", [
    ("<!here> GPU or TPU?", "here GPU or TPU?"),
    ("<!channel> <@U0ALICE> ask <!subteam^S1|@infra> now", "channel @U0ALICE ask @infra now"),
    ("<!everyone>", "everyone"),
])
def test_the_thread_title_carries_no_broadcast_or_mention_markup(text: str, title: str) -> None:
    from bot.slack.assistant import thread_title

    made = thread_title(text, "UHWBOT01")
    assert "<" not in made and "@here" not in made and "@channel" not in made and "@everyone" not in made
    assert made == title

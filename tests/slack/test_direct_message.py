"""A direct message is answered in the DM, with sources."""

from __future__ import annotations

from tests.harness.slack_app import RunningBot, block_texts, blocks_of
from tests.harness.slack_requests import message


def test_a_dm_is_answered_in_the_dm(bot: RunningBot) -> None:
    event = message("Why did GPUs become the default accelerator?", channel="DDIRECT01", channel_type="im")
    assert bot.sender.event(event).status == 200
    body = bot.fake.wait_for("chat.postMessage")[0].body
    assert body["channel"] == "DDIRECT01"
    assert "thread_ts" not in body or body["thread_ts"] in (None, "")  # a top-level DM gets a top-level reply
    blocks = blocks_of(body)
    sources = [b for b in blocks if b.get("block_id") == "hwbot_sources"]
    assert sources and "[file_gpu001:c" in "\n".join(block_texts(sources))


def test_a_dm_thread_reply_is_answered_in_that_thread(bot: RunningBot) -> None:
    event = message("Where are TPUs strongest?", channel="DDIRECT01", channel_type="im", thread_ts="1690000000.000001")
    bot.sender.event(event)
    body = bot.fake.wait_for("chat.postMessage")[0].body
    assert body["channel"] == "DDIRECT01" and body["thread_ts"] == "1690000000.000001"


def test_an_edited_dm_is_not_answered_again(bot: RunningBot) -> None:
    original = message("Where are TPUs strongest?", channel="DDIRECT01", channel_type="im")
    bot.sender.event(original)
    bot.fake.wait_for("chat.postMessage")
    edit = message(
        "",
        channel="DDIRECT01",
        channel_type="im",
        user=None,
        subtype="message_changed",
        message={"type": "message", "user": "UASKER01", "text": "Where are GPUs strongest?", "ts": original["ts"]},
        previous_message={"type": "message", "user": "UASKER01", "text": original["text"], "ts": original["ts"]},
    )
    bot.sender.event(edit)
    bot.wait_idle()
    assert len(bot.fake.calls("chat.postMessage")) == 1

"""No broadcast or group ping is ever sent, and HWBOT_ALLOWED_CHANNELS is enforced."""

from __future__ import annotations

import json
import re

import pytest

from bot.slack.blocks import answer_message, split_text, text_message
from bot.slack.mrkdwn import escape, to_plain
from knowledge.qa.answers import Answer, Citation
from tests.harness.slack_requests import mention, message
from tests.slack.conftest import RunningBot, block_texts, blocks_of

#: Anything that would notify people if Slack received it unescaped.
PINGS = re.compile(r"<!(channel|here|everyone|subteam\^)|<@[UW]")
INJECTION = "<!channel> <!here> <!everyone> <!subteam^S0123ABC|@oncall> <@U0VICTIM> where are TPUs strongest?"


def _assert_no_pings(bot: RunningBot) -> None:
    sent = bot.fake.all_bodies_text()
    assert not PINGS.search(sent), PINGS.search(sent)


def test_broadcast_mentions_in_a_mention_are_never_sent(bot: RunningBot) -> None:
    bot.sender.event(mention(INJECTION))
    bot.fake.wait_for("chat.postMessage")
    bot.wait_idle()
    _assert_no_pings(bot)


def test_typed_markup_echoed_by_ask_is_escaped(bot: RunningBot) -> None:
    # Slack sends characters a person typed as entities: "<!channel>" arrives as "&lt;!channel&gt;".
    typed = "ask &lt;!channel&gt; &lt;!here|here&gt; &lt;@U0VICTIM&gt; where are TPUs strongest?"
    bot.sender.command(typed)
    body = bot.fake.wait_for("chat.postMessage")[0].body
    question_line = block_texts(blocks_of(body))[0]
    assert question_line == "Question: &lt;!channel&gt; &lt;!here|here&gt; &lt;@U0VICTIM&gt; where are TPUs strongest?"
    bot.wait_idle()
    _assert_no_pings(bot)


def test_encoded_pings_in_a_slash_command_become_plain_words(bot: RunningBot) -> None:
    # With "escape channels, users and links" on, Slack sends real mentions encoded.
    bot.sender.command("ask <!channel> <!subteam^S0123ABC|@oncall> where are TPUs strongest?")
    body = bot.fake.wait_for("chat.postMessage")[0].body
    assert block_texts(blocks_of(body))[0] == "Question: @channel @oncall where are TPUs strongest?"
    assert "link_names" not in body  # plain "@channel" text only pings with link_names
    bot.wait_idle()
    _assert_no_pings(bot)


def test_engine_text_and_labels_are_escaped_too() -> None:
    # Sources are written by people as well: nothing that reaches Slack is trusted.
    answer = Answer(
        question="q",
        answer="Use <!here> & <https://evil.example|this>. [file_gpu009:c0000]",
        declined=False,
        citations=[Citation(label="[file_gpu009:c0000] <!channel>.md p1-1", chunk_id="file_gpu009:c0000", source="file_gpu009", pages="1-1", score=1.0)],
        notices=["question truncated <!everyone>"],
    )
    msg = answer_message(answer, "id1")
    text = msg.text + "\n".join(block_texts(msg.blocks))
    assert not PINGS.search(text)
    assert "&lt;!here&gt; &amp; &lt;https://evil.example|this&gt;" in text
    assert "&lt;!channel&gt;.md" in text and "&lt;!everyone&gt;" in text
    assert not PINGS.search(str(text_message("<!channel> failed").blocks))


def test_escape_and_split_never_cut_an_entity() -> None:
    text = "<&>" * 2000
    chunks = split_text(text, 3000)
    assert all(len(c) <= 3000 for c in chunks)
    assert "".join(chunks) == escape(text)
    assert all(not re.search(r"&(a|am|l|g|lt|gt)?$", c) for c in chunks)


def test_to_plain_reads_slack_markup() -> None:
    raw = "<@UHWBOT01> hi <@U1|ann> in <#C1|general>, see <https://x.example/a|docs> &amp; <!here>"
    assert to_plain(raw, "UHWBOT01") == "hi @ann in #general, see docs & @here"


def test_allowlist_blocks_other_channels_but_not_dms(start_bot) -> None:  # type: ignore[no-untyped-def]
    bot: RunningBot = start_bot(allowed="CALLOWED1")
    bot.sender.event(mention("where are TPUs strongest?", channel="CBLOCKED1"))
    bot.wait_idle()
    assert bot.fake.calls("chat.postMessage") == [] and bot.fake.calls("reactions.add") == []

    bot.sender.event(mention("where are TPUs strongest?", channel="CALLOWED1"))
    bot.sender.event(message("where are TPUs strongest?", channel="DDIRECT01", channel_type="im"))
    posts = bot.fake.wait_for("chat.postMessage", 2)
    assert {p.body["channel"] for p in posts} == {"CALLOWED1", "DDIRECT01"}

    refused = bot.sender.command("ask where are TPUs strongest?", channel="CBLOCKED1")
    assert "not enabled in this channel" in refused.json()["text"]
    refused = bot.sender.command("recommend", channel="CBLOCKED1")
    assert "not enabled in this channel" in refused.json()["text"]
    assert "/hwbot ask" in "\n".join(block_texts(bot.sender.command("help", channel="CBLOCKED1").json()["blocks"]))
    bot.wait_idle()
    assert bot.fake.calls("views.open") == []
    assert len(bot.fake.calls("chat.postMessage")) == 2


def test_a_click_never_echoes_the_payload_blocks_back(bot: RunningBot) -> None:
    from bot.slack.blocks import ACTION_HELPFUL, FEEDBACK_BLOCK_ID
    from tests.harness.slack_requests import block_action

    bot.sender.event(mention("where are TPUs strongest?"))
    post = bot.fake.wait_for("chat.postMessage")[0]
    answer_id = next(b for b in blocks_of(post.body) if b.get("block_id") == FEEDBACK_BLOCK_ID)["elements"][0]["value"]
    forged = [{"type": "section", "text": {"type": "mrkdwn", "text": "<!channel> *ADMIN NOTICE* reset your password"}}]
    message = {"type": "message", "ts": post.response["ts"], "text": "x", "blocks": forged}
    assert bot.sender.interactive(block_action(action_id=ACTION_HELPFUL, value=answer_id, channel="CGENERAL1", message=message)).status == 200
    update = bot.fake.wait_for("chat.update")[0].body
    assert "ADMIN NOTICE" not in json.dumps(update)
    assert any(b.get("block_id") == "hwbot_sources" for b in update["blocks"])  # re-rendered from the stored answer
    bot.wait_idle()
    _assert_no_pings(bot)


def test_a_click_with_an_empty_response_url_is_acked_and_sends_nothing(bot: RunningBot) -> None:
    from bot.slack.blocks import ACTION_HELPFUL
    from tests.harness.slack_requests import block_action

    payload = block_action(action_id=ACTION_HELPFUL, value="0" * 32, channel="CGENERAL1", message={"ts": "1.0", "blocks": []})
    assert payload["response_url"] == ""
    assert bot.sender.interactive(payload).status == 200
    bot.wait_idle()
    assert bot.fake.calls("response_url") == [] and bot.fake.calls("chat.update") == []


def test_a_thread_ts_that_is_not_a_timestamp_is_ignored_without_a_sorry(bot: RunningBot) -> None:
    event = mention("where are TPUs strongest?")
    event["thread_ts"] = ["1690000000.000001", "x"]
    assert bot.sender.event(event).status == 200
    bot.wait_idle()
    assert bot.fake.calls("chat.postMessage") == [] and bot.fake.calls("reactions.add") == []


def test_the_echoed_question_keeps_no_formatting_and_no_citation_label(bot: RunningBot) -> None:
    bot.sender.command("ask *ADMIN NOTICE* [file_gpu001:c0002] gpu_tpu_lesson_notes.md p2-2 where are TPUs strongest?")
    body = bot.fake.wait_for("chat.postMessage")[0].body
    echo = blocks_of(body)[0]
    assert echo["type"] == "context" and echo["elements"][0]["type"] == "plain_text"  # never rendered as mrkdwn
    assert "[file_gpu001:c0002]" not in echo["elements"][0]["text"]
    assert "(file_gpu001:c0002)" in echo["elements"][0]["text"]


@pytest.mark.parametrize("body", ["{not json", "[1, 2]", "payload=%7Bbroken", "\udcff"])
def test_a_signed_malformed_body_is_a_400_and_does_nothing(bot: RunningBot, body: str, hwbot_logs) -> None:  # type: ignore[no-untyped-def]
    raw = body.encode("utf-8", "surrogateescape")
    reply = bot.sender.raw(raw.decode("latin-1"), content_type="application/x-www-form-urlencoded" if "=" in body else "application/json")
    assert reply.status == 400
    bot.wait_idle()
    assert bot.fake.calls() == []
    assert not any(r.exc_info for r in hwbot_logs.records)

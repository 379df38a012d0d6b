"""Tokens never reach the logs; message text is never logged at INFO (ours: never at all)."""

from __future__ import annotations

import io
import logging

import pytest

from bot.slack.blocks import ACTION_HELPFUL, FEEDBACK_BLOCK_ID
from bot.slack.logs import RedactingFilter, redact
from tests.harness.slack_requests import block_action, mention, message, select_state, view_submission
from tests.slack.conftest import APP_TOKEN, BOT_TOKEN, SIGNING_SECRET, RunningBot, blocks_of

SECRETS = (BOT_TOKEN, SIGNING_SECRET, APP_TOKEN)
#: A distinctive word that appears only in what people typed.
MARKER = "quokkaflux"


def _exercise_everything(bot: RunningBot) -> None:
    bot.sender.event(mention(f"Where are TPUs strongest for {MARKER} training?"))
    post = bot.fake.wait_for("chat.postMessage")[0]
    bot.sender.event(message(f"and {MARKER} inference?", channel="DDIRECT01", channel_type="im"))
    bot.sender.command(f"ask is a {MARKER} GPU better?")
    bot.sender.command("recommend")
    bot.sender.interactive(view_submission(select_state({"cloud": "mars", "stage": "exploration"})))
    bot.sender.interactive(view_submission(select_state({f: "unknown" for f in bot.runtime.questionnaire.fields})))
    blocks = blocks_of(post.body)
    answer_id = next(b for b in blocks if b.get("block_id") == FEEDBACK_BLOCK_ID)["elements"][0]["value"]
    echoed = {"ts": post.response["ts"], "text": post.body["text"], "blocks": blocks}
    bot.sender.interactive(block_action(action_id=ACTION_HELPFUL, value=answer_id, channel="CGENERAL1", message=echoed))
    # Refused requests carry text too, and one carries a token in its body.
    bot.sender.raw(f'{{"type": "event_callback", "event": {{"text": "{MARKER} {BOT_TOKEN}"}}}}', content_type="application/json", signature="v0=" + "0" * 64)
    bot.fake.fail_next("chat.postMessage", status=429, retry_after=0)
    bot.sender.event(mention(f"one more {MARKER} question"))
    bot.fake.wait_for("chat.postMessage", 5)
    bot.wait_idle()


def test_no_token_or_secret_in_any_log_record_at_any_level(bot: RunningBot, hwbot_logs: pytest.LogCaptureFixture) -> None:
    _exercise_everything(bot)
    assert hwbot_logs.records, "expected some logging"
    everything = hwbot_logs.text + "\n".join(str(r.__dict__) for r in hwbot_logs.records)
    for secret in SECRETS:
        assert secret not in everything


def test_message_text_is_not_logged_at_info_and_ours_never(bot: RunningBot, hwbot_logs: pytest.LogCaptureFixture) -> None:
    _exercise_everything(bot)
    info_and_up = [r for r in hwbot_logs.records if r.levelno >= logging.INFO]
    # Our own INFO lines are there (ids, sizes, timings)...
    assert any("answered a mention" in r.getMessage() for r in info_and_up)
    assert any(r.name.startswith("hwbot.slack") and r.levelno == logging.INFO for r in info_and_up)
    # ...but never what anybody wrote.
    assert not [r.getMessage() for r in info_and_up if MARKER in r.getMessage()]
    ours = [r for r in hwbot_logs.records if r.name.startswith("hwbot")]
    assert not [r.getMessage() for r in ours if MARKER in r.getMessage()]


def test_framework_loggers_are_pinned_at_warning(bot: RunningBot, hwbot_logs: pytest.LogCaptureFixture) -> None:
    _exercise_everything(bot)
    chatty = [r for r in hwbot_logs.records if r.name.startswith(("slack_bolt", "slack_sdk", "hwbot-bolt")) and r.levelno < logging.WARNING]
    assert chatty == []


def test_redacting_filter_masks_tokens_in_messages_args_and_tracebacks() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactingFilter([SIGNING_SECRET]))
    logger = logging.getLogger("hwbot.test.redaction")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("token %s and secret %s", BOT_TOKEN, SIGNING_SECRET)
        logger.warning(f"inline xoxp-12345-abcdef and {APP_TOKEN}")
        try:
            raise RuntimeError(f"bad token {BOT_TOKEN}")
        except RuntimeError:
            logger.exception("failed")
    finally:
        logger.removeHandler(handler)
    out = stream.getvalue()
    for secret in (*SECRETS, "xoxp-12345-abcdef"):
        assert secret not in out
    assert out.count("[redacted]") >= 5
    assert "RuntimeError" in out  # the traceback itself survives


def test_redact_leaves_ordinary_text_alone() -> None:
    assert redact("xoxo kisses, xox and an xapp store", ["abc"]) == "xoxo kisses, xox and an xapp store"

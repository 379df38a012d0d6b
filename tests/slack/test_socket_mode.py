"""Socket Mode end to end: the app dials the fake's WebSocket and handles pushed envelopes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.slack.app import build_app
from bot.slack.feedback import FeedbackStore
from bot.slack.run import start_socket_mode
from bot.slack.runtime import EngineAnswers, SlackRuntime
from bot.state import SqliteStateStore
from common.slack_settings import SlackSettings
from tests.harness.fake_slack import TEAM_ID, FakeSlackApi
from tests.harness.slack_requests import event_envelope, mention, select_state, view_submission
from tests.slack.conftest import APP_TOKEN, BOT_TOKEN, TrackingExecutor, block_texts, blocks_of


class SocketBot:
    def __init__(self, fake: FakeSlackApi, runtime: SlackRuntime, executor: TrackingExecutor) -> None:
        self.fake = fake
        self.runtime = runtime
        self.executor = executor
        self._n = 0

    def push(self, kind: str, payload: dict[str, Any], *, retry_attempt: int = 0) -> str:
        self._n += 1
        envelope_id = f"env-{self._n}-{retry_attempt}"
        self.fake.push_envelope(
            {
                "envelope_id": envelope_id,
                "type": kind,
                "payload": payload,
                "accepts_response_payload": kind != "events_api",
                "retry_attempt": retry_attempt,
                "retry_reason": "timeout" if retry_attempt else "",
            }
        )
        return envelope_id


@pytest.fixture
def socket_bot(fake_slack: FakeSlackApi, engine_core: EngineAnswers, tmp_path: Path) -> Iterator[SocketBot]:
    settings = SlackSettings(
        SLACK_BOT_TOKEN=BOT_TOKEN,
        SLACK_APP_TOKEN=APP_TOKEN,
        SLACK_SIGNING_SECRET="",
        HWBOT_SLACK_API_URL=fake_slack.api_url,
        HWBOT_ALLOWED_CHANNELS="",
    )
    settings.check(socket_mode=True)
    runtime = SlackRuntime(settings=settings, engine=engine_core, state=SqliteStateStore(tmp_path / "state.sqlite3"),
                           feedback=FeedbackStore(tmp_path / "feedback.sqlite3"))
    executor = TrackingExecutor()
    app = build_app(runtime, socket_mode=True, executor=executor)
    handler = start_socket_mode(app, settings)
    fake_slack.wait_socket_connected()
    try:
        yield SocketBot(fake_slack, runtime, executor)
    finally:
        handler.close()
        executor.shutdown(wait=True)


def test_a_mention_over_socket_mode_is_acked_and_answered_once(socket_bot: SocketBot) -> None:
    event = mention("Where are TPUs strongest?")
    envelope = event_envelope(event)
    first = socket_bot.push("events_api", envelope)
    assert socket_bot.fake.wait_ack(first)["envelope_id"] == first
    post = socket_bot.fake.wait_for("chat.postMessage")[0]
    assert post.body["thread_ts"] == event["ts"]
    assert any(b.get("block_id") == "hwbot_sources" for b in blocks_of(post.body))

    # Slack redelivers the same event on a new envelope: acked, not answered again.
    again = socket_bot.push("events_api", envelope, retry_attempt=1)
    socket_bot.fake.wait_ack(again)
    socket_bot.executor.wait_idle()
    assert len(socket_bot.fake.calls("chat.postMessage")) == 1


def test_slash_command_and_modal_over_socket_mode(socket_bot: SocketBot) -> None:
    command = {
        "team_id": TEAM_ID,
        "channel_id": "CGENERAL1",
        "user_id": "UASKER01",
        "command": "/hwbot",
        "text": "help",
        "trigger_id": "1.2.trigger",
        "response_url": socket_bot.fake.webhook_url("sm1"),
    }
    help_ack = socket_bot.fake.wait_ack(socket_bot.push("slash_commands", command))
    assert "/hwbot recommend" in "\n".join(block_texts(help_ack["payload"]["blocks"]))

    socket_bot.push("slash_commands", {**command, "text": "recommend"})
    opened = socket_bot.fake.wait_for("views.open")[0]
    assert opened.body["trigger_id"] == "1.2.trigger"

    bad = view_submission(select_state({"cloud": "mars"}))
    errors_ack = socket_bot.fake.wait_ack(socket_bot.push("interactive", bad))
    assert errors_ack["payload"]["response_action"] == "errors"
    assert "q_cloud" in errors_ack["payload"]["errors"]

    good = view_submission(select_state({f: "unknown" for f in socket_bot.runtime.questionnaire.fields}))
    socket_bot.push("interactive", good)
    post = socket_bot.fake.wait_for("chat.postMessage")[0]
    assert post.body["channel"] == "UASKER01"
    assert "Recommendation:" in "\n".join(block_texts(blocks_of(post.body)))

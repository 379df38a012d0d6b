"""The Slack app running for real on loopback: HTTP server, fake Web API, real engine.

Each test gets a fresh fake Web API and a fresh app (its own dedupe memory, thread
memory and feedback database) on ephemeral 127.0.0.1 ports, built on the session's
real ``QAEngine`` (``qa`` fixture). Listener work runs on a :class:`TrackingExecutor`
so a test can wait until every background job finished before asserting that
something was *not* sent.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bot.slack.app import LISTENER_THREADS, build_app
from bot.slack.core import EngineCore, SlackCore
from bot.slack.feedback import FeedbackStore
from bot.slack.server import SlackHttpServer
from bot.slack.services import SlackServices
from tests.harness.fake_slack import FakeSlackApi
from tests.harness.slack_app import (
    APP_TOKEN,
    BOT_TOKEN,
    SIGNING_SECRET,
    RunningBot,
    TrackingExecutor,
    make_settings,
)
from tests.harness.slack_requests import SlackSender


@pytest.fixture
def fake_slack() -> Iterator[FakeSlackApi]:
    fake = FakeSlackApi(token=BOT_TOKEN, app_token=APP_TOKEN).start()
    yield fake
    fake.stop()


@pytest.fixture
def engine_core(qa) -> EngineCore:  # type: ignore[no-untyped-def]
    return EngineCore(qa)


@pytest.fixture
def start_bot(fake_slack: FakeSlackApi, engine_core: EngineCore, tmp_path: Path) -> Iterator[Callable[..., RunningBot]]:
    started: list[RunningBot] = []

    def start(*, allowed: str = "", core: SlackCore | None = None) -> RunningBot:
        settings = make_settings(fake_slack, tmp_path / f"feedback{len(started)}.sqlite3", allowed=allowed)
        services = SlackServices(settings=settings, core=core or engine_core, feedback=FeedbackStore(settings.feedback_db))
        executor = TrackingExecutor(LISTENER_THREADS)
        app = build_app(services, executor=executor)
        server = SlackHttpServer(app, host="127.0.0.1", port=0).start()
        running = RunningBot(fake_slack, server, services, SlackSender(server.url, SIGNING_SECRET), executor)
        started.append(running)
        return running

    yield start
    for running in started:
        running.server.shutdown()
        running.executor.shutdown(wait=True)


@pytest.fixture
def bot(start_bot: Callable[..., RunningBot]) -> RunningBot:
    return start_bot()


@pytest.fixture
def hwbot_logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """Capture everything, DEBUG and up, from every logger."""
    caplog.set_level(logging.DEBUG)
    return caplog

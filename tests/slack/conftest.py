"""The Slack app running for real on loopback: HTTP server, fake Web API, real engine.

Each test gets a fresh fake Web API and a fresh app (its own dedupe memory, thread
memory and feedback database) on ephemeral 127.0.0.1 ports, built on the session's
real ``QAEngine`` (``qa`` fixture). Listener work runs on a :class:`TrackingExecutor`
so a test can wait until every background job finished before asserting that
something was *not* sent.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot.slack.app import LISTENER_THREADS, SlackWorker, build_worker
from bot.slack.feedback import FeedbackStore
from bot.slack.front import SlackFront
from bot.slack.runtime import EngineAnswers, SlackEngine, SlackRuntime
from bot.state import SqliteStateStore
from common.slack_settings import SlackSettings
from tests.harness.asgi_server import LoopbackAsgiServer
from tests.harness.fake_slack import FakeSlackApi
from tests.harness.slack_requests import SlackSender

#: Made-up credentials, shaped like real ones so the redaction patterns are exercised.
BOT_TOKEN = "xoxb-1111111111-2222222222-hwbotTESTbotTOKENvalue"
SIGNING_SECRET = "5f0c2b9e7d3a41c8b6e2f9a0d4c7e1b3"
APP_TOKEN = "xapp-1-AHWBOT01-3333333333-hwbotTESTappTOKENvalue"


class TrackingExecutor(ThreadPoolExecutor):
    """A thread pool that can wait until everything submitted so far has finished."""

    def __init__(self, max_workers: int = 5) -> None:
        super().__init__(max_workers=max_workers, thread_name_prefix="hwbot-test-listener")
        self._futures: list[Future] = []
        self._futures_lock = threading.Lock()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:  # type: ignore[override]
        future = super().submit(fn, *args, **kwargs)
        with self._futures_lock:
            self._futures.append(future)
        return future

    def wait_idle(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            with self._futures_lock:
                pending = [f for f in self._futures if not f.done()]
            if not pending:
                return
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{len(pending)} listener job(s) still running")
            wait(pending, timeout=left)


@dataclass
class RunningBot:
    fake: FakeSlackApi
    server: LoopbackAsgiServer
    runtime: SlackRuntime
    sender: SlackSender
    executor: TrackingExecutor
    worker: SlackWorker

    def wait_idle(self) -> None:
        self.executor.wait_idle()


class GatedCore:
    """The real core, but ``ask`` waits for :attr:`release` (to hold work in flight)."""

    def __init__(self, inner: SlackEngine) -> None:
        self.inner = inner
        self.entered = threading.Event()
        self.release = threading.Event()
        self._waiting = 0
        self._cond = threading.Condition()

    def ask(self, question: str):  # type: ignore[no-untyped-def]
        with self._cond:
            self._waiting += 1
            self._cond.notify_all()
        self.entered.set()
        assert self.release.wait(60), "gate never released"
        return self.inner.ask(question)

    def wait_waiting(self, count: int, timeout: float = 30.0) -> None:
        """Block until ``count`` questions are held at the gate."""
        with self._cond:
            assert self._cond.wait_for(lambda: self._waiting >= count, timeout), f"only {self._waiting} held"

    def recommend(self, profile):  # type: ignore[no-untyped-def]
        return self.inner.recommend(profile)


@pytest.fixture
def fake_slack() -> Iterator[FakeSlackApi]:
    fake = FakeSlackApi(token=BOT_TOKEN, app_token=APP_TOKEN).start()
    yield fake
    fake.stop()


@pytest.fixture
def engine_core(qa) -> EngineAnswers:  # type: ignore[no-untyped-def]
    return EngineAnswers(qa)


def make_settings(fake: FakeSlackApi, *, allowed: str = "") -> SlackSettings:
    settings = SlackSettings(
        SLACK_BOT_TOKEN=BOT_TOKEN,
        SLACK_SIGNING_SECRET=SIGNING_SECRET,
        SLACK_APP_TOKEN="",
        HWBOT_SLACK_API_URL=fake.api_url,
        HWBOT_ALLOWED_CHANNELS=allowed,
    )
    settings.check(socket_mode=False)
    return settings


@pytest.fixture
def start_bot(fake_slack: FakeSlackApi, engine_core: EngineAnswers, tmp_path: Path) -> Iterator[Callable[..., RunningBot]]:
    started: list[RunningBot] = []

    def start(
        *, allowed: str = "", core: SlackEngine | None = None, state: SqliteStateStore | None = None,
        escalation: str | None = None, background: bool = False,
    ) -> RunningBot:
        n = len(started)
        settings = make_settings(fake_slack, allowed=allowed)
        runtime = SlackRuntime(
            settings=settings, engine=core or engine_core, state=state or SqliteStateStore(tmp_path / f"state{n}.sqlite3"),
            feedback=FeedbackStore(tmp_path / f"feedback{n}.sqlite3"), escalation_channel=escalation,
        )
        executor = TrackingExecutor(LISTENER_THREADS)
        worker = build_worker(runtime, executor=executor)
        if background:
            worker.start()
        server = LoopbackAsgiServer(SlackFront(worker.app, SIGNING_SECRET, health=worker.health)).start()
        running = RunningBot(fake_slack, server, runtime, SlackSender(server.url, SIGNING_SECRET), executor, worker)
        started.append(running)
        return running

    yield start
    for running in started:
        running.server.shutdown()
        running.worker.drain()


@pytest.fixture
def bot(start_bot: Callable[..., RunningBot]) -> RunningBot:
    return start_bot()


@pytest.fixture
def hwbot_logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """Capture everything, DEBUG and up, from every logger."""
    caplog.set_level(logging.DEBUG)
    return caplog


def wait_for_log(caplog: pytest.LogCaptureFixture, fragment: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(fragment in r.getMessage() for r in caplog.records):
            return
        time.sleep(0.02)
    raise AssertionError(f"no log record containing {fragment!r}")


def blocks_of(call_body: dict[str, Any]) -> list[dict[str, Any]]:
    blocks = call_body.get("blocks") or []
    return blocks if isinstance(blocks, list) else []


def block_texts(blocks: list[dict[str, Any]]) -> list[str]:
    """Every mrkdwn/plain text in section, context and header blocks, in order."""
    out: list[str] = []
    for block in blocks:
        if isinstance(block.get("text"), dict):
            out.append(block["text"].get("text", ""))
        for element in block.get("elements") or []:
            if isinstance(element, dict) and element.get("type") in ("mrkdwn", "plain_text"):
                out.append(element.get("text", ""))
    return out

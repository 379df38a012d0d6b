"""The shared state fails soft and heals, on both backends, with a real ``hwbot slack --http`` process.

Each outage is real: the SQLite state dir's file system remounted read-only (as root;
``chmod`` otherwise) or the dir deleted; the Redis server stopped with ``SIGSTOP`` (hung,
not dead) or killed and restarted empty. Throughout, a signed event is acked with 200
within Slack's 3 s and answered (without shared state), ``/healthz`` says 503 with a
one-line reason while the store is down and 200 once it is back, the outage is logged
once, and a follow-up in a new thread is answered again after recovery.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.harness.fake_slack import FakeSlackApi
from tests.harness.redis_server import RedisServer
from tests.harness.slack_requests import mention, message
from tests.harness.slow_clients import timed_get
from tests.harness.workers import BotProcess
from tests.slack.conftest import BOT_TOKEN, SIGNING_SECRET

pytestmark = pytest.mark.slow

QUESTION = "Where are TPUs strongest?"
DOWN = "state store unavailable"


@dataclass
class Deployment:
    backend: str
    fake: FakeSlackApi
    bot: BotProcess
    state_dir: Path
    redis: RedisServer | None = None

    def health(self) -> tuple[int, float]:
        return timed_get(f"http://127.0.0.1:{self.bot.port}/healthz", timeout=5)

    def wait_health(self, status: int, timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout
        while self.health()[0] != status:
            assert time.monotonic() < deadline, f"/healthz never said {status}:\n{self.bot.log()[-2000:]}"
            time.sleep(0.25)

    def ask_in_time(self, channel: str) -> str:
        """A signed mention: acked 200 within 3 s and answered; returns its ts."""
        event = mention(QUESTION, channel=channel)
        reply = self.bot.sender.event(event)
        assert reply.status == 200 and reply.received_at - reply.sent_at < 3.0, (reply.status, reply.received_at - reply.sent_at)
        self.fake.wait_for("chat.postMessage", where=lambda c: c.body.get("thread_ts") == event["ts"], timeout=120)
        return str(event["ts"])

    def follow_up_is_answered(self, channel: str) -> None:
        ts = self.ask_in_time(channel)
        self.bot.sender.event(message("And why did GPUs become the default?", channel=channel, thread_ts=ts))
        self.fake.wait_for("chat.postMessage", 2, where=lambda c: c.body.get("thread_ts") == ts, timeout=120)

    def outage_lines(self) -> int:
        return sum(DOWN in line and "answering without shared state" in line for line in self.bot.lines)


def _read_only(path: Path, on: bool) -> None:
    """Make the state dir read-only. Root ignores ``chmod``, so there a read-only tmpfs is mounted over it."""
    if os.geteuid() == 0:
        command = ["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(path)] if on else ["umount", str(path)]
        done = subprocess.run(command, capture_output=True)
        assert done.returncode == 0, done.stderr.decode(errors="replace")
        return
    for p in [path, *path.iterdir()]:
        p.chmod((0o555 if p.is_dir() else 0o444) if on else (0o755 if p.is_dir() else 0o644))


@pytest.fixture(scope="module", params=["sqlite", "redis"])
def deployment(request: pytest.FixtureRequest, built_index: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    backend = str(request.param)
    home = tmp_path_factory.mktemp(f"outage-{backend}")
    mount = home / "mnt"
    fake = FakeSlackApi(token=BOT_TOKEN).start()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "HWBOT_")) or k == "HWBOT_NETGUARD"}
    env.update(SLACK_BOT_TOKEN=BOT_TOKEN, SLACK_SIGNING_SECRET=SIGNING_SECRET, HWBOT_SLACK_API_URL=fake.api_url,
               HWBOT_INDEX_DIR=str(built_index), HWBOT_STATE_DIR=str(mount / "state"), HWBOT_FEEDBACK_DB=str(home / "fb.sqlite3"),
               HF_HUB_OFFLINE="1")
    redis = None
    if backend == "redis":
        redis = RedisServer()
        redis.wait_ready()
        env["HWBOT_REDIS_URL"] = redis.url
    bot = BotProcess(env, SIGNING_SECRET).start()
    running = Deployment(backend, fake, bot, mount / "state", redis)
    try:
        bot.wait_healthy()
        yield running
    finally:
        bot.stop()
        fake.stop()
        if redis is not None:
            redis.stop()
    assert "Traceback" not in bot.log(), bot.log()[-3000:]


def test_a_read_only_state_dir_or_a_hung_redis_is_answered_in_time_reported_and_healed(deployment: Deployment) -> None:
    d = deployment
    before = d.outage_lines()
    if d.backend == "sqlite":
        _read_only(d.state_dir, True)
    else:
        assert d.redis is not None
        os.kill(d.redis.proc.pid, signal.SIGSTOP)
    try:
        for i in range(3):
            d.ask_in_time(f"CDOWN{i}")  # acked in time and answered without shared state
        d.wait_health(503)
        status, seconds = d.health()
        assert status == 503 and seconds < 3.0
        assert d.outage_lines() == before + 1, "one log line per outage, not per request"
    finally:
        if d.backend == "sqlite":
            _read_only(d.state_dir, False)
        else:
            assert d.redis is not None
            os.kill(d.redis.proc.pid, signal.SIGCONT)
    d.wait_health(200)
    d.bot.wait_line("state store recovered")
    d.follow_up_is_answered("CHEALED1")  # claims and threads work again (every thread's connection reopened)


def test_a_deleted_state_dir_or_a_restarted_redis_heals_on_its_own(deployment: Deployment) -> None:
    d = deployment
    if d.backend == "sqlite":
        shutil.rmtree(d.state_dir)
        d.ask_in_time("CGONE1")
        assert (d.state_dir / "state.sqlite3").exists(), "the state dir is recreated"
    else:
        assert d.redis is not None
        before = d.outage_lines()
        d.redis.kill()
        d.ask_in_time("CGONE1")
        d.wait_health(503)
        assert d.outage_lines() == before + 1
        d.redis.restart()
        d.wait_health(200)
    d.wait_health(200)
    d.follow_up_is_answered("CGONE2")

"""GuardedStore on both backends: deadlines, fail-fast while down, one log line per outage, healing."""

from __future__ import annotations

import logging
import os
import shutil
import signal
import threading
import time
from pathlib import Path

import pytest

from bot.state import GuardedStore, RedisStateStore, SqliteStateStore, StateUnavailable
from tests.harness.redis_server import RedisServer


def _outage_lines(caplog: pytest.LogCaptureFixture) -> int:
    return sum("state store unavailable" in r.getMessage() for r in caplog.records if r.name == "hwbot.state")


@pytest.mark.slow
def test_a_hung_redis_costs_one_short_timeout_then_fails_fast_and_heals(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    server = RedisServer()
    try:
        server.wait_ready()
        store = GuardedStore(RedisStateStore(server.url, prefix="guard:"), retry_after=0.5)
        store.put("ns", "k", "v")
        os.kill(server.proc.pid, signal.SIGSTOP)
        try:
            started = time.monotonic()
            with pytest.raises(StateUnavailable):
                store.get("ns", "k")
            assert time.monotonic() - started < 1.5  # 0.5 s socket timeout, one immediate retry
            started = time.monotonic()
            for _ in range(20):
                with pytest.raises(StateUnavailable):
                    store.put("ns", "k2", "v")
            assert time.monotonic() - started < 1.5  # fails fast: at most one probe per retry_after waits
            assert store.health() is not None and "Redis" in str(store.health())
            assert _outage_lines(caplog) == 1
        finally:
            os.kill(server.proc.pid, signal.SIGCONT)
        time.sleep(0.6)
        assert store.get("ns", "k") == "v"
        assert store.health() is None
        assert any("recovered" in r.getMessage() for r in caplog.records)
        server.kill()
        with pytest.raises(StateUnavailable):
            store.get("ns", "k")
        server.restart()
        time.sleep(0.6)
        assert store.get("ns", "k") is None  # no persistence: a restarted server is empty (docs/slack.md)
        assert store.health() is None
        assert _outage_lines(caplog) == 2
    finally:
        server.stop()


def test_a_deleted_sqlite_state_dir_is_recreated_for_every_thread(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    directory = tmp_path / "state"
    store = GuardedStore(SqliteStateStore(directory / "state.sqlite3"))
    store.put("ns", "k", "v")
    seen: list[str | None] = []
    barrier = threading.Barrier(3)

    def worker() -> None:
        store.put("ns", threading.current_thread().name, "1")  # every thread has its own connection open
        barrier.wait()
        barrier.wait()
        store.put("ns", "after", "1")
        seen.append(store.get("ns", "after"))

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    barrier.wait()
    shutil.rmtree(directory)
    barrier.wait()
    for t in threads:
        t.join(10)
    assert seen == ["1", "1"]
    assert (directory / "state.sqlite3").exists()
    assert store.get("ns", "k") is None and store.get("ns", "after") == "1"  # one file again, shared by all
    assert store.health() is None


def test_every_call_is_guarded_with_the_same_error(tmp_path: Path) -> None:
    """A store that cannot be written (a directory where the file should be) fails as StateUnavailable, soft."""
    store = GuardedStore(SqliteStateStore(tmp_path / "s" / "state.sqlite3"), retry_after=0.2)
    store.put("ns", "k", "v")
    store.backend.path = tmp_path / "s"  # now points at a directory: every open fails
    store.backend.reset()
    for call in (lambda: store.put("ns", "k", "v"), lambda: store.get("ns", "k"), lambda: store.claim(["a"], "me", 5.0),
                 lambda: store.items("ns"), lambda: store.update("ns", "k", lambda old: "x")):
        with pytest.raises(StateUnavailable):
            call()
    assert "state store unavailable" in str(store.health())

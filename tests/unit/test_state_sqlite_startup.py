"""The SQLite state file opened by several workers at once (gunicorn workers starting together)."""

from __future__ import annotations

import multiprocessing
import multiprocessing.synchronize
import time
from pathlib import Path

from bot.state import SqliteStateStore
from common.errors import ConfigError


def _open_when_told(path: str, go: "multiprocessing.synchronize.Event", out: "multiprocessing.Queue[str]") -> None:
    go.wait()
    try:
        SqliteStateStore(Path(path))
        out.put("ok")
    except ConfigError as exc:
        out.put(str(exc))


def test_workers_opening_a_new_state_file_together_all_open_it(tmp_path: Path) -> None:
    """Four processes that create one new state file at the same moment (gunicorn workers starting
    together) all open it: switching a new file to WAL could fail at once with "database is locked"
    in a sibling, without waiting (10 of 40 rounds before the retry; 8 rounds here)."""
    ctx = multiprocessing.get_context("spawn")
    for round_ in range(8):
        path = tmp_path / str(round_) / "state" / "state.sqlite3"
        go, out = ctx.Event(), ctx.Queue()
        procs = [ctx.Process(target=_open_when_told, args=(str(path), go, out)) for _ in range(4)]
        for p in procs:
            p.start()
        time.sleep(0.5)  # every process imported and waiting
        go.set()
        results = [out.get(timeout=60) for _ in procs]
        for p in procs:
            p.join(timeout=60)
        assert results == ["ok"] * 4, results

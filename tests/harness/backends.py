"""One shared-state store per backend, for the suites that must behave the same on SQLite and Redis."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from bot.state import RedisStateStore, SqliteStateStore, StateStore

__all__ = ["BACKENDS", "open_backend_store"]

BACKENDS = ["sqlite", "redis"]


def open_backend_store(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> StateStore:
    """A fresh store: SQLite in ``tmp_path``, or a key prefix of its own on the session's real Redis."""
    if backend == "sqlite":
        return SqliteStateStore(tmp_path / "state.sqlite3")
    server = request.getfixturevalue("redis_server")
    return RedisStateStore(server.url, prefix=f"t{uuid.uuid4().hex[:8]}:")

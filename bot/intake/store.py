"""Intake dialogs persisted in SQLite, one row per conversation key.

Why SQLite: it ships with Python, survives a process restart, and WAL mode lets many
readers and one writer work at once, which is what a Slack app answering many threads
needs. Why one row per key holding the whole state as JSON: a dialog step is a
read-modify-write of one small object, done in one ``BEGIN IMMEDIATE`` transaction
(:meth:`IntakeStore.update`), so two messages racing on the same key cannot lose an
answer and two different keys never touch each other's row.

The database lives in ``$HWBOT_STATE_DIR`` if set, else ``$XDG_STATE_HOME/hwbot``, else
``~/.local/state/hwbot``. Each thread gets its own connection (sqlite3 connections must
not be shared across threads without care, and per-thread ones need no lock).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import ValidationError

from bot.intake.dialog import IntakeState
from common.errors import ConfigError
from common.settings import HwbotSettings

__all__ = ["IntakeStore", "DB_NAME"]

DB_NAME = "intake.sqlite3"
#: Dialogs untouched for this long are deleted when a store is opened.
STALE_AFTER_SECONDS = 30 * 24 * 3600

_SCHEMA = """
CREATE TABLE IF NOT EXISTS dialogs (
    key TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    updated REAL NOT NULL
)
"""


class IntakeStore:
    """Load, save and atomically update dialog states by conversation key."""

    def __init__(self, path: Path | None = None, *, busy_timeout_ms: int = 10_000) -> None:
        self.path = Path(path) if path is not None else HwbotSettings().state_dir / DB_NAME
        self._busy_ms = busy_timeout_ms
        self._local = threading.local()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = self._conn()
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(_SCHEMA)
            conn.execute("DELETE FROM dialogs WHERE updated < ?", (time.time() - STALE_AFTER_SECONDS,))
        except (OSError, sqlite3.Error) as exc:
            raise ConfigError(
                f"cannot open the intake state database {self.path}: {exc}",
                hint="set HWBOT_STATE_DIR to a writable directory",
            ) from None

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            # isolation_level=None: we issue BEGIN/COMMIT ourselves, so transactions are explicit.
            conn = sqlite3.connect(self.path, timeout=self._busy_ms / 1000, isolation_level=None)
            conn.execute(f"PRAGMA busy_timeout={int(self._busy_ms)}")
            conn.execute("PRAGMA synchronous=NORMAL")
            self._local.conn = conn
        return conn

    @staticmethod
    def _decode(raw: str | None) -> IntakeState | None:
        """A stored state, or None if absent or unreadable (a corrupt row restarts the dialog)."""
        if raw is None:
            return None
        try:
            return IntakeState.model_validate(json.loads(raw))
        except (ValueError, ValidationError):
            return None

    def load(self, key: str) -> IntakeState | None:
        row = self._conn().execute("SELECT state FROM dialogs WHERE key = ?", (key,)).fetchone()
        return self._decode(row[0] if row else None)

    def save(self, key: str, state: IntakeState) -> None:
        self._conn().execute(
            "INSERT INTO dialogs(key, state, updated) VALUES (?, ?, ?) "
            "ON CONFLICT(key) DO UPDATE SET state = excluded.state, updated = excluded.updated",
            (key, state.model_dump_json(), time.time()),
        )

    def delete(self, key: str) -> None:
        self._conn().execute("DELETE FROM dialogs WHERE key = ?", (key,))

    def keys(self) -> list[str]:
        return [row[0] for row in self._conn().execute("SELECT key FROM dialogs ORDER BY key")]

    def update(self, key: str, step: Callable[[IntakeState | None], IntakeState | None]) -> IntakeState | None:
        """Read, transform and write one key's state in a single write transaction.

        ``step`` receives the current state (None if there is none) and returns the new
        one, or None to delete the row. Concurrent updates of one key are serialized.
        """
        conn = self._conn()
        conn.execute("BEGIN IMMEDIATE")
        try:
            row = conn.execute("SELECT state FROM dialogs WHERE key = ?", (key,)).fetchone()
            new = step(self._decode(row[0] if row else None))
            if new is None:
                conn.execute("DELETE FROM dialogs WHERE key = ?", (key,))
            else:
                conn.execute(
                    "INSERT INTO dialogs(key, state, updated) VALUES (?, ?, ?) "
                    "ON CONFLICT(key) DO UPDATE SET state = excluded.state, updated = excluded.updated",
                    (key, new.model_dump_json(), time.time()),
                )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return new

    def close(self) -> None:
        """Close this thread's connection (other threads' close when they end)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

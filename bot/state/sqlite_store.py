"""The embedded backend: one SQLite file in WAL mode under ``HWBOT_STATE_DIR``.

Why SQLite: it ships with Python, survives restarts, and in WAL mode readers never
block the single writer, so every ``hwbot slack`` worker on one host can share the file
with no configuration. Every write that must be atomic (a claim over several keys, a
read-modify-write) runs in one ``BEGIN IMMEDIATE`` transaction, which SQLite serializes
across processes. Expiry uses wall-clock time, because several processes compare it.
Each thread gets its own connection (sqlite3 connections are not shared across threads).

Deadlines and healing (see :mod:`bot.state.guard`): the busy timeout is 2 s, under
Slack's 3 s ack budget. :meth:`reset` makes every thread reopen its connection on its
next call, recreating the directory and the schema first: a connection opened while
the directory was read-only stays read-only until it is reopened, and one whose file
was deleted keeps writing into the deleted file.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path

from bot.state.base import CLAIM_DONE, CLAIM_IN_FLIGHT, CLAIMS, claim_owner, claim_state, claim_value
from common.errors import ConfigError

__all__ = ["SqliteStateStore", "STATE_DB_NAME"]

log = logging.getLogger("hwbot.state")

STATE_DB_NAME = "state.sqlite3"
#: How often (in writes) expired rows are swept.
_SWEEP_EVERY = 200

_SCHEMA = """
CREATE TABLE IF NOT EXISTS kv (
    ns TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    expires REAL,
    PRIMARY KEY (ns, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS kv_expires ON kv (expires) WHERE expires IS NOT NULL;
"""
_UPSERT = (
    "INSERT INTO kv (ns, key, value, expires) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (ns, key) DO UPDATE SET value = excluded.value, expires = excluded.expires"
)
_LIVE = "(expires IS NULL OR expires > ?)"


def _expiry(ttl: float | None) -> float | None:
    return None if ttl is None else time.time() + ttl


#: How long opening the database at start-up waits for another process's lock.
STARTUP_BUSY_MS = 15_000


class SqliteStateStore:
    """:class:`~bot.state.base.StateStore` over one SQLite file."""

    outage_errors: tuple[type[BaseException], ...] = (sqlite3.Error, OSError)
    retry_once = True

    def __init__(self, path: Path, *, busy_timeout_ms: int = 2_000) -> None:
        self.path = Path(path)
        self._busy_ms = busy_timeout_ms
        self._local = threading.local()
        self._writes = 0
        #: Bumped by :meth:`reset`; a thread whose connection is older reopens it.
        self._generation = 0
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._first_open(time.monotonic() + STARTUP_BUSY_MS / 1000)
        except (OSError, sqlite3.Error) as exc:
            raise ConfigError(
                f"cannot open the state database {self.path}: {exc}",
                hint="set HWBOT_STATE_DIR to a writable directory",
            ) from None

    def __repr__(self) -> str:
        return f"SqliteStateStore({str(self.path)!r})"

    def describe(self) -> str:
        return f"SQLite {self.path}"

    def reset(self) -> None:
        """Every thread reopens its connection on its next call (see the module docstring)."""
        self._generation += 1

    def _first_open(self, deadline: float) -> None:
        """Create the schema and sweep expired rows, waiting for sibling workers until ``deadline``.

        Workers that start together all create the schema, so the first open waits longer for a
        sibling's lock than a request does (a loaded machine held it past 2 s in CI). The busy
        timeout alone does not cover it: switching a new file to WAL while a sibling does the same
        can fail with "database is locked" at once, without waiting (SQLite's deadlock avoidance;
        4 processes opening one new file together failed so in 10 rounds of 40), so that case is
        tried again until the deadline."""
        while True:
            try:
                with closing(sqlite3.connect(self.path, timeout=STARTUP_BUSY_MS / 1000, isolation_level=None)) as first:
                    first.execute(f"PRAGMA busy_timeout={STARTUP_BUSY_MS}")
                    self._prepare(first)
                    first.execute("DELETE FROM kv WHERE expires IS NOT NULL AND expires <= ?", (time.time(),))
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() >= deadline:
                    raise
                time.sleep(0.05)

    @staticmethod
    def _prepare(conn: sqlite3.Connection) -> None:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.executescript(_SCHEMA)

    def _file_id(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return st.st_dev, st.st_ino

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is not None and getattr(self._local, "generation", 0) != self._generation:
            conn.close()
            conn = self._local.conn = None
        if conn is not None and self._file_id() != self._local.file_id:
            # The file was deleted or replaced (a wiped state dir): writes would go into
            # the deleted file, unseen by the other workers. Start over on the path.
            log.warning("the state database %s was deleted or replaced; recreating it", self.path)
            self.reset()
            conn.close()
            conn = self._local.conn = None
        if conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # isolation_level=None: we issue BEGIN/COMMIT ourselves, so transactions are explicit.
            conn = sqlite3.connect(self.path, timeout=self._busy_ms / 1000, isolation_level=None)
            conn.execute(f"PRAGMA busy_timeout={int(self._busy_ms)}")
            conn.execute("PRAGMA synchronous=NORMAL")
            generation = self._generation
            if generation:
                self._prepare(conn)  # after an outage: the file may be new
            self._local.conn = conn
            self._local.generation = generation
            self._local.file_id = self._file_id()
        return conn

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction: the write lock is taken up front, so no upgrade deadlock."""
        conn = self._conn()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
            self._writes += 1
            if self._writes % _SWEEP_EVERY == 0:
                conn.execute("DELETE FROM kv WHERE expires IS NOT NULL AND expires <= ?", (time.time(),))
            conn.execute("COMMIT")
        except BaseException:
            try:
                conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # the failure already ended the transaction
            raise

    @staticmethod
    def _read(conn: sqlite3.Connection, namespace: str, key: str) -> str | None:
        row = conn.execute(f"SELECT value FROM kv WHERE ns = ? AND key = ? AND {_LIVE}", (namespace, key, time.time())).fetchone()
        return str(row[0]) if row else None

    # -- values ---------------------------------------------------------------------

    def get(self, namespace: str, key: str) -> str | None:
        return self._read(self._conn(), namespace, key)

    def put(self, namespace: str, key: str, value: str, ttl: float | None = None) -> None:
        with self._write() as conn:
            conn.execute(_UPSERT, (namespace, key, value, _expiry(ttl)))

    def add(self, namespace: str, key: str, value: str, ttl: float | None = None) -> bool:
        with self._write() as conn:
            if self._read(conn, namespace, key) is not None:
                return False
            conn.execute(_UPSERT, (namespace, key, value, _expiry(ttl)))
            return True

    def delete(self, namespace: str, key: str) -> None:
        with self._write() as conn:
            conn.execute("DELETE FROM kv WHERE ns = ? AND key = ?", (namespace, key))

    def keys(self, namespace: str) -> list[str]:
        return [key for key, _ in self.items(namespace)]

    def items(self, namespace: str) -> list[tuple[str, str]]:
        rows = self._conn().execute(
            f"SELECT key, value FROM kv WHERE ns = ? AND {_LIVE} ORDER BY key", (namespace, time.time())
        ).fetchall()
        return [(str(k), str(v)) for k, v in rows]

    def update(
        self, namespace: str, key: str, step: Callable[[str | None], str | None], ttl: float | None = None
    ) -> str | None:
        with self._write() as conn:
            new = step(self._read(conn, namespace, key))
            if new is None:
                conn.execute("DELETE FROM kv WHERE ns = ? AND key = ?", (namespace, key))
            else:
                conn.execute(_UPSERT, (namespace, key, new, _expiry(ttl)))
            return new

    # -- claims ---------------------------------------------------------------------

    def claim(self, keys: Sequence[str], owner: str, ttl: float, *, steal_from: str | None = None) -> bool:
        with self._write() as conn:
            for key in keys:
                held = self._read(conn, CLAIMS, key)
                if held is None:
                    continue
                if steal_from and claim_state(held) == CLAIM_IN_FLIGHT and claim_owner(held) == steal_from:
                    continue
                return False
            value = claim_value(CLAIM_IN_FLIGHT, owner)
            for key in keys:
                conn.execute(_UPSERT, (CLAIMS, key, value, _expiry(ttl)))
            return True

    def settle(self, keys: Sequence[str], owner: str, ttl: float) -> None:
        with self._write() as conn:
            for key in keys:
                held = self._read(conn, CLAIMS, key)
                if held is None or claim_owner(held) == owner:
                    conn.execute(_UPSERT, (CLAIMS, key, claim_value(CLAIM_DONE, owner), _expiry(ttl)))

    def release(self, keys: Sequence[str], owner: str) -> None:
        with self._write() as conn:
            for key in keys:
                held = self._read(conn, CLAIMS, key)
                if held is not None and claim_owner(held) == owner and claim_state(held) == CLAIM_IN_FLIGHT:
                    conn.execute("DELETE FROM kv WHERE ns = ? AND key = ?", (CLAIMS, key))

    def close(self) -> None:
        """Close this thread's connection (other threads' close when they end)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

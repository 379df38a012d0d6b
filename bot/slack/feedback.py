"""Helpful / Not helpful votes, stored in SQLite.

A button can only carry 2,000 characters, so each posted answer is stored first
(question, answer text, citation labels) under a random id, and the buttons carry that
id. A click then copies the question, answer and citations into a feedback row with a
*hashed* user id and a timestamp. The hash is salted per database, so votes can be
counted per person without the file naming anyone. One vote per person per answer: a
second click changes the vote instead of adding one. Stored answers that nobody rated
are pruned after ``retention_days``.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import sqlite3
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pydantic import BaseModel

from common.errors import ConfigError
from knowledge.qa.models import Answer

__all__ = ["FeedbackStore", "FeedbackRecord", "StoredAnswer"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS answers (
    id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    question TEXT NOT NULL,
    answer TEXT NOT NULL,
    declined INTEGER NOT NULL,
    citations TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS feedback (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    answer_id TEXT NOT NULL,
    question TEXT NOT NULL,
    answer TEXT NOT NULL,
    citations TEXT NOT NULL,
    helpful INTEGER NOT NULL,
    user_hash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (answer_id, user_hash)
);
CREATE INDEX IF NOT EXISTS answers_created ON answers (created_at);
"""


def _now() -> datetime:
    return datetime.now(UTC)


class StoredAnswer(BaseModel):
    id: str
    question: str
    answer: str
    declined: bool
    citations: list[str]


class FeedbackRecord(BaseModel):
    """One vote, as stored."""

    answer_id: str
    question: str
    answer: str
    citations: list[str]
    helpful: bool
    user_hash: str
    created_at: str


class FeedbackStore:
    """SQLite-backed answers and votes; safe to use from Bolt's worker threads."""

    def __init__(self, path: Path, *, retention_days: int = 30) -> None:
        self.path = Path(path)
        self.retention = timedelta(days=retention_days)
        self._lock = threading.Lock()
        self._inserts = 0
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._connect() as db:
                db.executescript(_SCHEMA)
                row = db.execute("SELECT value FROM meta WHERE key = 'salt'").fetchone()
                if row is None:
                    db.execute("INSERT INTO meta (key, value) VALUES ('salt', ?)", (secrets.token_hex(16),))
        except (OSError, sqlite3.Error) as exc:
            raise ConfigError(
                f"cannot open the feedback database {self.path}: {exc}",
                hint="set HWBOT_FEEDBACK_DB to a writable file path",
            ) from None
        self._salt = self._read_salt()

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=10)
        try:
            with db:  # commit on success, roll back on error
                yield db
        finally:
            db.close()

    def _read_salt(self) -> str:
        with self._connect() as db:
            return str(db.execute("SELECT value FROM meta WHERE key = 'salt'").fetchone()[0])

    def hash_user(self, team_id: str | None, user_id: str) -> str:
        """A salted SHA-256 of the workspace and user ids: stable per person, not reversible."""
        material = f"{self._salt}:{team_id or ''}:{user_id}".encode()
        return hashlib.sha256(material).hexdigest()

    def remember(self, answer: Answer) -> str:
        """Store a posted answer; returns the id its feedback buttons carry."""
        answer_id = uuid.uuid4().hex
        labels = json.dumps([c.label for c in answer.citations])
        now = _now()
        with self._lock, self._connect() as db:
            db.execute(
                "INSERT INTO answers (id, created_at, question, answer, declined, citations) VALUES (?, ?, ?, ?, ?, ?)",
                (answer_id, now.isoformat(timespec="seconds"), answer.question, answer.answer, int(answer.declined), labels),
            )
            self._inserts += 1
            if self._inserts % 100 == 1:
                cutoff = (now - self.retention).isoformat(timespec="seconds")
                db.execute(
                    "DELETE FROM answers WHERE created_at < ? AND id NOT IN (SELECT answer_id FROM feedback)",
                    (cutoff,),
                )
        return answer_id

    def answer(self, answer_id: str) -> StoredAnswer | None:
        with self._connect() as db:
            row = db.execute(
                "SELECT id, question, answer, declined, citations FROM answers WHERE id = ?", (answer_id,)
            ).fetchone()
        if row is None:
            return None
        return StoredAnswer(id=row[0], question=row[1], answer=row[2], declined=bool(row[3]), citations=json.loads(row[4]))

    def record(self, answer_id: str, *, helpful: bool, team_id: str | None, user_id: str) -> FeedbackRecord | None:
        """Store (or change) one person's vote on one answer; None if the answer is unknown."""
        stored = self.answer(answer_id)
        if stored is None:
            return None
        record = FeedbackRecord(
            answer_id=answer_id,
            question=stored.question,
            answer=stored.answer,
            citations=stored.citations,
            helpful=helpful,
            user_hash=self.hash_user(team_id, user_id),
            created_at=_now().isoformat(timespec="seconds"),
        )
        with self._lock, self._connect() as db:
            db.execute(
                """INSERT INTO feedback (answer_id, question, answer, citations, helpful, user_hash, created_at)
                   VALUES (?, ?, ?, ?, ?, ?, ?)
                   ON CONFLICT (answer_id, user_hash) DO UPDATE SET helpful = excluded.helpful,
                                                                created_at = excluded.created_at""",
                (
                    record.answer_id,
                    record.question,
                    record.answer,
                    json.dumps(record.citations),
                    int(record.helpful),
                    record.user_hash,
                    record.created_at,
                ),
            )
        return record

    def votes(self) -> list[FeedbackRecord]:
        """Every stored vote, oldest first (for reports and tests)."""
        with self._connect() as db:
            rows = db.execute(
                "SELECT answer_id, question, answer, citations, helpful, user_hash, created_at FROM feedback ORDER BY id"
            ).fetchall()
        return [
            FeedbackRecord(
                answer_id=r[0],
                question=r[1],
                answer=r[2],
                citations=json.loads(r[3]),
                helpful=bool(r[4]),
                user_hash=r[5],
                created_at=r[6],
            )
            for r in rows
        ]

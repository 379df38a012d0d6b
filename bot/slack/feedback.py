"""Helpful / Not helpful votes, and the answers they are about, in the state store.

A button can only carry 2,000 characters, so each posted answer is stored first
(question, answer text, citation labels, whether it declined) under a random id, and
the buttons carry that id. A click copies the question, answer and citations into a
vote with a *hashed* user id and a timestamp, plus, for "not helpful", the reason
picked in the small modal (wrong, not covered, outdated, other) and free text. The
hash is salted per store, so votes can be counted per person without the store naming
anyone. One vote per person per answer: the vote's key is (answer, person), so a second
click changes it instead of adding one. Stored answers expire after ``retention_days``;
votes are kept.

By default the store is its own SQLite file (``HWBOT_FEEDBACK_DB``, user data that
outlives the state dir); with ``HWBOT_REDIS_URL`` it is the shared Redis store, so a
click on any host finds the answer. ``hwbot feedback`` reads the same store.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ValidationError

from bot.slack.origin import Origin
from bot.state import GuardedStore, SqliteStateStore, StateStore
from common.errors import ConfigError
from knowledge.qa.answers import Answer

__all__ = ["FeedbackStore", "FeedbackRecord", "StoredAnswer", "REASONS", "Reason"]

Reason = Literal["wrong", "not_covered", "outdated", "other"]
#: The "not helpful" reasons, as offered in the modal.
REASONS: dict[str, str] = {
    "wrong": "The answer is wrong",
    "not_covered": "The notes don't cover my question",
    "outdated": "The answer is outdated",
    "other": "Something else",
}
_ANSWERS = "answer"
_VOTES = "vote"
_META = "meta"
COMMENT_LIMIT = 1000


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class StoredAnswer(BaseModel):
    id: str
    question: str
    answer: str
    declined: bool
    citations: list[str]
    created_at: str = ""
    #: Where it was posted (see :mod:`bot.slack.origin`); a click from elsewhere is refused.
    origin: Origin | None = None


class FeedbackRecord(BaseModel):
    """One vote, as stored."""

    answer_id: str
    question: str
    answer: str
    citations: list[str]
    helpful: bool
    user_hash: str
    created_at: str
    declined: bool = False
    reason: Reason | None = None
    comment: str | None = None


class FeedbackStore:
    """Answers and votes; safe from Bolt's worker threads and from several workers."""

    def __init__(self, state: StateStore | Path, *, retention_days: int = 30) -> None:
        if isinstance(state, Path):
            try:
                state = GuardedStore(SqliteStateStore(state))
            except ConfigError as exc:
                raise ConfigError(
                    f"cannot open the feedback database: {exc.message}", hint="set HWBOT_FEEDBACK_DB to a writable file path"
                ) from None
        self.state = state
        self.retention_seconds = retention_days * 24 * 3600.0
        self.state.add(_META, "salt", secrets.token_hex(16))
        self._salt = self.state.get(_META, "salt") or ""

    def hash_user(self, team_id: str | None, user_id: str) -> str:
        """A salted SHA-256 of the workspace and user ids: stable per person, not reversible."""
        material = f"{self._salt}:{team_id or ''}:{user_id}".encode()
        return hashlib.sha256(material).hexdigest()

    def remember(self, answer: Answer, *, channel: str = "", user: str = "") -> str:
        """Store an answer about to be posted in ``channel``; returns the id its feedback buttons carry."""
        stored = StoredAnswer(
            id=uuid.uuid4().hex,
            question=answer.question,
            answer=answer.answer,
            declined=answer.declined,
            citations=[c.label for c in answer.citations],
            created_at=_now(),
            origin=Origin(channel=channel, user=user),
        )
        self.state.put(_ANSWERS, stored.id, stored.model_dump_json(), ttl=self.retention_seconds)
        return stored.id

    def bind(self, answer_id: str, channel: str, ts: str) -> None:
        """The answer was posted as message ``ts`` in ``channel``: only clicks from there count."""

        def step(raw: str | None) -> str | None:
            if raw is None:
                return None
            stored = StoredAnswer.model_validate_json(raw)
            user = stored.origin.user if stored.origin else ""
            return stored.model_copy(update={"origin": Origin(channel=channel, ts=ts, user=user)}).model_dump_json()

        self.state.update(_ANSWERS, answer_id, step, ttl=self.retention_seconds)

    def voted(self, answer_id: str, team_id: str | None, user_id: str) -> bool:
        """Whether this person has a vote on this answer (a reason needs one first)."""
        return self.state.get(_VOTES, f"{answer_id}:{self.hash_user(team_id, user_id)}") is not None

    def answer(self, answer_id: str) -> StoredAnswer | None:
        raw = self.state.get(_ANSWERS, answer_id)
        try:
            return StoredAnswer.model_validate_json(raw) if raw else None
        except ValidationError:
            return None

    def answers(self) -> list[StoredAnswer]:
        """Every stored answer still kept, oldest first (``hwbot feedback`` reads the declined ones)."""
        out = []
        for _, raw in self.state.items(_ANSWERS):
            try:
                out.append(StoredAnswer.model_validate_json(raw))
            except ValidationError:
                continue
        return sorted(out, key=lambda a: a.created_at)

    def record(
        self,
        answer_id: str,
        *,
        helpful: bool,
        team_id: str | None,
        user_id: str,
        reason: Reason | None = None,
        comment: str | None = None,
    ) -> FeedbackRecord | None:
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
            created_at=_now(),
            declined=stored.declined,
            reason=None if helpful else reason,
            comment=(comment or "").strip()[:COMMENT_LIMIT] or None if not helpful else None,
        )
        self.state.put(_VOTES, f"{answer_id}:{record.user_hash}", record.model_dump_json())
        return record

    def votes(self) -> list[FeedbackRecord]:
        """Every stored vote, oldest first (for reports and tests)."""
        out = []
        for _, raw in self.state.items(_VOTES):
            try:
                out.append(FeedbackRecord.model_validate(json.loads(raw)))
            except (ValueError, ValidationError):
                continue
        return sorted(out, key=lambda v: v.created_at)

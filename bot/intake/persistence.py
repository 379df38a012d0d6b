"""Intake dialogs kept in the shared state store, one value per conversation key.

The dialogs live in the same :class:`~bot.state.StateStore` as everything else hwbot
must remember (SQLite under ``HWBOT_STATE_DIR`` by default, Redis when
``HWBOT_REDIS_URL`` is set), so a dialog started on one Slack worker continues on any
other, and survives a restart. Each key holds the whole state as JSON: a dialog step
is one read-modify-write of one small object, done atomically by
:meth:`IntakeStore.update`, so two messages racing on the same key cannot lose an
answer and two different keys never touch each other.

Dialogs expire 30 days after their last change (the TTL is renewed on every write).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from pydantic import ValidationError

from bot.intake.state import IntakeState
from bot.state import STATE_DB_NAME, SqliteStateStore, StateStore, open_state_store
from common.settings import HwbotSettings

__all__ = ["IntakeStore", "DB_NAME", "NAMESPACE"]

#: The state file under ``HWBOT_STATE_DIR`` (shared with the Slack app's state).
DB_NAME = STATE_DB_NAME
NAMESPACE = "intake"
#: Dialogs untouched for this long are forgotten.
STALE_AFTER_SECONDS = 30 * 24 * 3600


class IntakeStore:
    """Load, save and atomically update dialog states by conversation key.

    ``path`` names an SQLite file (tests, a private store); ``state`` passes a store
    that is already open; :meth:`open` opens the configured shared store.
    """

    def __init__(self, path: Path | None = None, *, busy_timeout_ms: int = 10_000, state: StateStore | None = None) -> None:
        self.path: Path | None
        if state is not None:
            self._state = state
            self.path = getattr(state, "path", None)
        elif path is not None:
            self.path = Path(path)
            self._state = SqliteStateStore(self.path, busy_timeout_ms=busy_timeout_ms)
        else:
            raise TypeError("IntakeStore needs a path or an open state store (IntakeStore.open(settings))")

    @classmethod
    def open(cls, settings: HwbotSettings) -> "IntakeStore":
        """The configured shared store: Redis when ``HWBOT_REDIS_URL`` is set, else SQLite under the state dir."""
        return cls(state=open_state_store(settings))

    @staticmethod
    def _decode(raw: str | None) -> IntakeState | None:
        """A stored state, or None if absent or unreadable (a corrupt value restarts the dialog).

        A state saved by the older, fixed-order dialog is migrated by the model itself.
        """
        if raw is None:
            return None
        try:
            return IntakeState.model_validate(json.loads(raw))
        except (ValueError, ValidationError):
            return None

    def load(self, key: str) -> IntakeState | None:
        return self._decode(self._state.get(NAMESPACE, key))

    def save(self, key: str, state: IntakeState) -> None:
        self._state.put(NAMESPACE, key, state.model_dump_json(), ttl=STALE_AFTER_SECONDS)

    def delete(self, key: str) -> None:
        self._state.delete(NAMESPACE, key)

    def keys(self) -> list[str]:
        return self._state.keys(NAMESPACE)

    def update(self, key: str, step: Callable[[IntakeState | None], IntakeState | None]) -> IntakeState | None:
        """Read, transform and write one key's state atomically.

        ``step`` receives the current state (None if there is none) and returns the new
        one, or None to delete it. Concurrent updates of one key are serialized.
        """
        result: list[IntakeState | None] = [None]

        def raw_step(raw: str | None) -> str | None:
            new = step(self._decode(raw))
            result[0] = new
            return None if new is None else new.model_dump_json()

        self._state.update(NAMESPACE, key, raw_step, ttl=STALE_AFTER_SECONDS)
        return result[0]

    def close(self) -> None:
        """Close this thread's connection to the store."""
        self._state.close()

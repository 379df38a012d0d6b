"""Exactly-once answers on top of at-least-once delivery.

Slack redelivers an event (with ``X-Slack-Retry-Num``) when it did not see a 200 in
time, and one message can arrive twice under different event ids (``app_mention`` and
``message.channels`` both fire for a mention in a thread the bot follows). So a piece
of work is claimed under *all* its keys, the event id and ``(channel, ts)``, before it
starts:

- while the first delivery is still working, the claim is *in flight* and a retry is
  dropped (it must not start a second answer);
- once it is *done*, duplicates are dropped until the TTL expires;
- if the work failed before answering, the claim is *released*, so Slack's own retry
  gets a fair second try instead of silence.

In-flight claims also expire (after ``in_flight_ttl``) so a crashed worker cannot
block a message forever. Everything is in memory: a restart forgets, which is fine
because Slack stops retrying after a few minutes.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["DedupeStore", "Claim", "event_keys"]

IN_FLIGHT = "in_flight"
DONE = "done"


def event_keys(event_id: str | None, channel: str | None, ts: str | None) -> list[str]:
    """The keys one delivery is known by (any may be missing in odd payloads)."""
    keys: list[str] = []
    if event_id:
        keys.append(f"event:{event_id}")
    if channel and ts:
        keys.append(f"message:{channel}:{ts}")
    return keys


@dataclass
class _Entry:
    state: str
    expires: float
    owner: int


class Claim:
    """The right to do one piece of work. Call :meth:`done` or :meth:`release` exactly once."""

    def __init__(self, store: "DedupeStore", keys: list[str], owner: int) -> None:
        self._store = store
        self.keys = keys
        self._owner = owner
        self._settled = False

    def done(self) -> None:
        """The work happened: drop duplicates for the full TTL."""
        if not self._settled:
            self._settled = True
            self._store._finish(self.keys, self._owner)

    def release(self) -> None:
        """The work did not happen: let a later delivery try again."""
        if not self._settled:
            self._settled = True
            self._store._release(self.keys, self._owner)


class DedupeStore:
    """A thread-safe TTL map of work keys to ``in_flight`` / ``done``."""

    def __init__(
        self,
        *,
        ttl: float = 3600.0,
        in_flight_ttl: float = 600.0,
        max_entries: int = 50_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl = ttl
        self.in_flight_ttl = in_flight_ttl
        self.max_entries = max_entries
        self._clock = clock
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._next_owner = 0

    def claim(self, keys: list[str]) -> Claim | None:
        """A :class:`Claim` if none of ``keys`` is in flight or done, else None.

        With no keys at all there is nothing to de-duplicate on, so the work is allowed.
        """
        with self._lock:
            now = self._clock()
            self._purge(now)
            if any(k in self._entries for k in keys):
                return None
            self._next_owner += 1
            owner = self._next_owner
            for key in keys:
                self._entries[key] = _Entry(IN_FLIGHT, now + self.in_flight_ttl, owner)
            self._shrink()
            return Claim(self, list(keys), owner)

    def state(self, key: str) -> str | None:
        """``in_flight``, ``done`` or None (for logs and tests)."""
        with self._lock:
            self._purge(self._clock())
            entry = self._entries.get(key)
            return entry.state if entry else None

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    # -- internals ------------------------------------------------------------------

    def _finish(self, keys: list[str], owner: int) -> None:
        with self._lock:
            now = self._clock()
            for key in keys:
                entry = self._entries.get(key)
                if entry is None or entry.owner == owner:
                    self._entries[key] = _Entry(DONE, now + self.ttl, owner)
                    self._entries.move_to_end(key)
            self._shrink()

    def _release(self, keys: list[str], owner: int) -> None:
        with self._lock:
            for key in keys:
                entry = self._entries.get(key)
                if entry is not None and entry.owner == owner:
                    del self._entries[key]

    def _purge(self, now: float) -> None:
        expired = [k for k, e in self._entries.items() if e.expires <= now]
        for key in expired:
            del self._entries[key]

    def _shrink(self) -> None:
        # Oldest first; in-flight entries are kept (dropping them would allow a double answer).
        if len(self._entries) <= self.max_entries:
            return
        for key in [k for k, e in self._entries.items() if e.state == DONE]:
            if len(self._entries) <= self.max_entries:
                break
            del self._entries[key]

"""The one interface every piece of shared state goes through.

It is deliberately small: namespaced string values with an optional time to live, an
atomic read-modify-write, and all-or-nothing *claims*. Everything hwbot keeps is built
from those: dedupe claims (``claim``), answered threads and stored answers (``put`` with
a TTL), intake sessions (``update``), pending work (``put``/``update``/``items``) and
feedback votes (``put`` keyed by answer and person, so a second click overwrites).

Values are strings (callers store JSON), so both backends hold exactly the same bytes.

A claim value is ``"<state>|<owner>"``: ``in_flight`` while the owner works, ``done``
afterwards. A claim may *take over* keys held in flight by an owner known to be dead
(``steal_from``), which is how a restarted worker finishes a crashed one's work.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

__all__ = ["StateStore", "CLAIM_IN_FLIGHT", "CLAIM_DONE", "claim_value", "claim_state", "claim_owner"]

CLAIM_IN_FLIGHT = "in_flight"
CLAIM_DONE = "done"
#: The namespace claims live in (kept apart from everything else).
CLAIMS = "claim"


def claim_value(state: str, owner: str) -> str:
    return f"{state}|{owner}"


def claim_state(value: str | None) -> str | None:
    """``in_flight``, ``done`` or None."""
    return value.partition("|")[0] if value else None


def claim_owner(value: str | None) -> str | None:
    return value.partition("|")[2] if value else None


@runtime_checkable
class StateStore(Protocol):
    """Shared, expiring key-value state; safe from many threads and many processes."""

    def get(self, namespace: str, key: str) -> str | None:
        """The live value, or None if absent or expired."""

    def put(self, namespace: str, key: str, value: str, ttl: float | None = None) -> None:
        """Set a value; ``ttl`` seconds (None: kept until deleted)."""

    def add(self, namespace: str, key: str, value: str, ttl: float | None = None) -> bool:
        """Set only if absent (or expired); True if this call set it."""

    def delete(self, namespace: str, key: str) -> None: ...

    def keys(self, namespace: str) -> list[str]:
        """Live keys of a namespace, sorted."""

    def items(self, namespace: str) -> list[tuple[str, str]]:
        """Live ``(key, value)`` pairs of a namespace, sorted by key."""

    def update(
        self, namespace: str, key: str, step: Callable[[str | None], str | None], ttl: float | None = None
    ) -> str | None:
        """Atomically replace a value with ``step(old)``; None from ``step`` deletes it."""

    def claim(self, keys: Sequence[str], owner: str, ttl: float, *, steal_from: str | None = None) -> bool:
        """Take every key for ``owner`` (in flight, for ``ttl`` seconds), or none of them.

        A key already held fails the claim, unless it is held *in flight* by ``steal_from``.
        """

    def settle(self, keys: Sequence[str], owner: str, ttl: float) -> None:
        """Mark ``owner``'s claims done for ``ttl`` seconds (keys another owner holds are left alone)."""

    def release(self, keys: Sequence[str], owner: str) -> None:
        """Drop ``owner``'s claims, so a later delivery may try again."""

    def close(self) -> None: ...

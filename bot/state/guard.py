"""State that fails soft and heals: deadlines, one log line per outage, and a health status.

Every backend call already has a deadline (SQLite's busy timeout, Redis socket and
command timeouts, both well under Slack's 3 s ack budget). :class:`GuardedStore` wraps a
backend so that an outage behaves the same on both:

- a failing call raises :class:`StateUnavailable` (one error type for the callers to
  handle: answer without shared state where that is safe, refuse clearly where not);
- the first failure of an outage logs one warning, the recovery logs one info line, and
  nothing is logged per request in between;
- while the store is down, calls fail at once instead of each waiting out a timeout
  (so a hung Redis cannot make every ack wait); one call every ``retry_after`` seconds
  is let through to find out whether the store is back (the worker's heartbeat makes
  one every 2 s, so recovery needs no traffic);
- after a failure the backend is told to :meth:`reset`: SQLite reopens every thread's
  connection (one opened while the directory was read-only stays read-only) and
  recreates a deleted state directory; redis-py reconnects by itself;
- :meth:`health` is what ``/healthz`` reports: None when healthy, else a one-line reason.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

from common.errors import HwbotError

__all__ = ["GuardedStore", "StateUnavailable", "Backend", "RETRY_AFTER"]

log = logging.getLogger("hwbot.state")

#: While the store is down, one call in this many seconds may try it again.
RETRY_AFTER = 1.0
T = TypeVar("T")


class StateUnavailable(HwbotError):
    """The shared state store cannot be used right now (a deadline passed, or it refused)."""


class Backend(Protocol):
    """What :class:`GuardedStore` needs beyond the :class:`~bot.state.base.StateStore` calls."""

    #: Errors that mean "the store is unavailable" (anything else is a bug and propagates).
    outage_errors: tuple[type[BaseException], ...]
    #: Whether a failed call is worth one immediate retry after :meth:`reset` (cheap for SQLite).
    retry_once: bool

    def reset(self) -> None:
        """Drop connections so the next call reopens them (and recreates what is missing)."""

    def describe(self) -> str: ...


class GuardedStore:
    """A :class:`~bot.state.base.StateStore` over ``backend`` that fails soft and heals."""

    def __init__(self, backend: Any, *, retry_after: float = RETRY_AFTER) -> None:
        self.backend = backend
        self.retry_after = retry_after
        self._lock = threading.Lock()
        self._down_since: float | None = None
        self._reason = ""
        self._next_try = 0.0

    @property
    def path(self) -> Any:
        """The wrapped store's file (SQLite), or None (Redis): where the state lives, for messages and tests."""
        return getattr(self.backend, "path", None)

    def __repr__(self) -> str:
        return f"GuardedStore({self.backend!r})"

    # -- health ---------------------------------------------------------------------

    def health(self) -> str | None:
        """None when the last call worked, else a one-line reason (what ``/healthz`` says)."""
        with self._lock:
            return None if self._down_since is None else f"state store unavailable: {self._reason}"

    def _gate(self) -> None:
        """While down, fail fast, except one caller per ``retry_after`` who tries the store."""
        with self._lock:
            if self._down_since is None:
                return
            now = time.monotonic()
            if now < self._next_try:
                raise StateUnavailable(f"state store unavailable: {self._reason}")
            self._next_try = now + self.retry_after

    def _failed(self, exc: BaseException) -> StateUnavailable:
        reason = f"{self.backend.describe()}: {type(exc).__name__}: {' '.join(str(exc).split())[:160]}"
        with self._lock:
            first = self._down_since is None
            if first:
                self._down_since = time.monotonic()
            self._reason = reason
            self._next_try = time.monotonic() + self.retry_after
        if first:
            log.warning("state store unavailable (%s); answering without shared state until it returns", reason)
        return StateUnavailable(f"state store unavailable: {reason}")

    def _worked(self) -> None:
        if self._down_since is None:
            return
        with self._lock:
            if self._down_since is None:
                return
            seconds = time.monotonic() - self._down_since
            self._down_since = None
        log.info("state store recovered after %.1fs", seconds)

    def _call(self, op: Callable[[], T]) -> T:
        self._gate()
        try:
            result = op()
        except self.backend.outage_errors as exc:
            self.backend.reset()
            if not self.backend.retry_once:
                raise self._failed(exc) from None
            try:
                result = op()
            except self.backend.outage_errors as again:
                self.backend.reset()
                raise self._failed(again) from None
        self._worked()
        return result

    # -- the StateStore calls ---------------------------------------------------------

    def get(self, namespace: str, key: str) -> str | None:
        return self._call(lambda: self.backend.get(namespace, key))

    def put(self, namespace: str, key: str, value: str, ttl: float | None = None) -> None:
        self._call(lambda: self.backend.put(namespace, key, value, ttl))

    def add(self, namespace: str, key: str, value: str, ttl: float | None = None) -> bool:
        return bool(self._call(lambda: self.backend.add(namespace, key, value, ttl)))

    def delete(self, namespace: str, key: str) -> None:
        self._call(lambda: self.backend.delete(namespace, key))

    def keys(self, namespace: str) -> list[str]:
        return list(self._call(lambda: self.backend.keys(namespace)))

    def items(self, namespace: str) -> list[tuple[str, str]]:
        return list(self._call(lambda: self.backend.items(namespace)))

    def update(self, namespace: str, key: str, step: Callable[[str | None], str | None], ttl: float | None = None) -> str | None:
        return self._call(lambda: self.backend.update(namespace, key, step, ttl))

    def claim(self, keys: Sequence[str], owner: str, ttl: float, *, steal_from: str | None = None) -> bool:
        return bool(self._call(lambda: self.backend.claim(keys, owner, ttl, steal_from=steal_from)))

    def settle(self, keys: Sequence[str], owner: str, ttl: float) -> None:
        self._call(lambda: self.backend.settle(keys, owner, ttl))

    def release(self, keys: Sequence[str], owner: str) -> None:
        self._call(lambda: self.backend.release(keys, owner))

    def close(self) -> None:
        self.backend.close()

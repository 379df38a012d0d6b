"""The threads the bot has answered in, so follow-ups there need no new mention.

Only threads the bot itself answered count: the bot reads every message in channels it
is in (``message.channels``), and answering arbitrary threads would be noise. Memory is
bounded and expires (default a week), and is in memory only: after a restart a
follow-up needs a mention again, which is the safe direction to fail in.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable

__all__ = ["ThreadMemory"]


class ThreadMemory:
    """A thread-safe, bounded TTL set of ``(channel, thread_ts)``."""

    def __init__(
        self,
        *,
        ttl: float = 7 * 24 * 3600.0,
        max_threads: int = 20_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl = ttl
        self.max_threads = max_threads
        self._clock = clock
        self._lock = threading.Lock()
        self._threads: OrderedDict[tuple[str, str], float] = OrderedDict()

    def remember(self, channel: str, thread_ts: str) -> None:
        with self._lock:
            key = (channel, thread_ts)
            self._threads[key] = self._clock() + self.ttl
            self._threads.move_to_end(key)
            while len(self._threads) > self.max_threads:
                self._threads.popitem(last=False)

    def knows(self, channel: str, thread_ts: str | None) -> bool:
        if not thread_ts:
            return False
        with self._lock:
            expires = self._threads.get((channel, thread_ts))
            if expires is None:
                return False
            if expires <= self._clock():
                del self._threads[(channel, thread_ts)]
                return False
            return True

"""The threads the bot has answered in, so follow-ups there need no new mention.

Only threads the bot itself answered count: the bot reads every message in channels it
is in (``message.channels``), and answering arbitrary threads would be noise. They are
kept in the shared state store for a week, so a follow-up is answered by whichever
worker Slack delivers it to, also after a restart. While the store is unavailable, no
thread is known (a follow-up then needs a mention) and nothing is remembered.
"""

from __future__ import annotations

from bot.state import StateStore, StateUnavailable

__all__ = ["ThreadMemory", "THREAD_TTL"]

THREAD_TTL = 7 * 24 * 3600.0
_NAMESPACE = "thread"


class ThreadMemory:
    """``(channel, thread_ts)`` pairs with a TTL, in the shared state."""

    def __init__(self, state: StateStore, *, ttl: float = THREAD_TTL) -> None:
        self.state = state
        self.ttl = ttl

    def remember(self, channel: str, thread_ts: str) -> None:
        try:
            self.state.put(_NAMESPACE, f"{channel}:{thread_ts}", "1", ttl=self.ttl)
        except StateUnavailable:
            pass

    def knows(self, channel: str, thread_ts: str | None) -> bool:
        if not thread_ts:
            return False
        try:
            return self.state.get(_NAMESPACE, f"{channel}:{thread_ts}") is not None
        except StateUnavailable:
            return False

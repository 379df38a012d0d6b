"""Shared state for every front end: one interface, an embedded SQLite default and Redis.

Several ``hwbot slack`` workers (on one host, or on several behind a load balancer) must
behave as one app: a claim taken by one is seen by all, a thread answered by one is
known to all, and work recorded by one can be finished by another after a crash. So
everything that must outlive a request lives behind :class:`StateStore`.
:func:`open_state_store` picks the backend from :class:`~common.settings.HwbotSettings`.
"""

from bot.state.base import CLAIM_DONE, CLAIM_IN_FLIGHT, StateStore, claim_state, claim_value
from bot.state.factory import open_state_store
from bot.state.guard import GuardedStore, StateUnavailable
from bot.state.redis_store import RedisStateStore
from bot.state.sqlite_store import STATE_DB_NAME, SqliteStateStore

__all__ = [
    "StateStore",
    "SqliteStateStore",
    "RedisStateStore",
    "open_state_store",
    "GuardedStore",
    "StateUnavailable",
    "STATE_DB_NAME",
    "CLAIM_DONE",
    "CLAIM_IN_FLIGHT",
    "claim_state",
    "claim_value",
]

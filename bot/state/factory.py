"""Pick the backend from the settings: Redis when ``HWBOT_REDIS_URL`` is set, else SQLite."""

from __future__ import annotations

from bot.state.base import StateStore
from bot.state.guard import GuardedStore
from bot.state.redis_store import RedisStateStore
from bot.state.sqlite_store import STATE_DB_NAME, SqliteStateStore
from common.settings import HwbotSettings

__all__ = ["open_state_store"]


def open_state_store(settings: HwbotSettings) -> StateStore:
    """The shared state store this process should use (one per process is enough), guarded.

    Opening fails at once (a :class:`~common.errors.ConfigError`) when the store is
    unusable at start; later outages are handled by :class:`GuardedStore`.
    """
    if settings.redis_url:
        return GuardedStore(RedisStateStore(settings.redis_url, prefix=settings.redis_prefix))
    return GuardedStore(SqliteStateStore(settings.state_dir / STATE_DB_NAME))

"""The multi-host backend: Redis at ``HWBOT_REDIS_URL``.

Claims are ``SET NX PX`` per key: the first worker to set a key owns it, everywhere at
once. A claim over several keys rolls back what it took if a later key is held. Taking
over a dead owner's key, settling and releasing are compare-and-set scripts, so a slow
worker can never overwrite a claim that expired and was taken by someone else.
Threads, sessions and pending work carry TTLs (``PX``), so Redis never fills up with
state nobody will read. A read-modify-write (``update``) is ``WATCH``/``MULTI``, retried
on conflict.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from bot.state.base import CLAIM_DONE, CLAIM_IN_FLIGHT, CLAIMS, claim_value
from common.errors import ConfigError

__all__ = ["RedisStateStore"]

# KEYS[1] = key, ARGV[1] = expected value, ARGV[2] = new value, ARGV[3] = ttl ms
_CAS = """
local held = redis.call('GET', KEYS[1])
if held == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0
"""
# KEYS[1] = key, ARGV[1] = expected value
_CAD = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""
# KEYS[1] = key, ARGV[1] = owner suffix ('|owner'), ARGV[2] = new value, ARGV[3] = ttl ms
_SETTLE = """
local held = redis.call('GET', KEYS[1])
if (not held) or string.sub(held, -string.len(ARGV[1])) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0
"""


#: Socket connect and command timeout, seconds (a command on a healthy server takes about a millisecond).
TIMEOUT = 0.5


def _ms(ttl: float) -> int:
    return max(1, int(ttl * 1000))


class RedisStateStore:
    """:class:`~bot.state.base.StateStore` over one Redis database (keys under ``prefix``)."""

    retry_once = False

    def __init__(self, url: str, *, prefix: str = "hwbot:", client: Any = None, timeout: float = TIMEOUT) -> None:
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        self.url = url
        self.prefix = prefix
        self.outage_errors = (redis.RedisError, OSError)
        try:
            # Deadlines well under Slack's 3 s ack: a hung server costs one timeout, then
            # GuardedStore fails fast. One retry, at once, covers a pooled connection that
            # a restarted server closed.
            self._redis = client or redis.Redis.from_url(
                url, decode_responses=True, socket_timeout=timeout, socket_connect_timeout=timeout,
                retry=Retry(NoBackoff(), 1), health_check_interval=0,
            )
            self._redis.ping()
        except (redis.RedisError, ValueError) as exc:
            raise ConfigError(
                f"cannot reach Redis at HWBOT_REDIS_URL: {type(exc).__name__}",
                hint="check the URL (redis://host:port/db), or unset HWBOT_REDIS_URL to use SQLite",
            ) from None
        self._cas = self._redis.register_script(_CAS)
        self._cad = self._redis.register_script(_CAD)
        self._settle = self._redis.register_script(_SETTLE)

    def __repr__(self) -> str:
        return f"RedisStateStore(prefix={self.prefix!r})"

    def describe(self) -> str:
        return "Redis at HWBOT_REDIS_URL"

    def reset(self) -> None:
        """Drop pooled connections; redis-py opens fresh ones on the next command."""
        try:
            self._redis.connection_pool.disconnect()
        except Exception:  # noqa: BLE001 - best effort: the next command reconnects anyway
            pass

    def _key(self, namespace: str, key: str) -> str:
        return f"{self.prefix}{namespace}:{key}"

    # -- values ---------------------------------------------------------------------

    def get(self, namespace: str, key: str) -> str | None:
        value = self._redis.get(self._key(namespace, key))
        return None if value is None else str(value)

    def put(self, namespace: str, key: str, value: str, ttl: float | None = None) -> None:
        self._redis.set(self._key(namespace, key), value, px=_ms(ttl) if ttl is not None else None)

    def add(self, namespace: str, key: str, value: str, ttl: float | None = None) -> bool:
        return bool(self._redis.set(self._key(namespace, key), value, nx=True, px=_ms(ttl) if ttl is not None else None))

    def delete(self, namespace: str, key: str) -> None:
        self._redis.delete(self._key(namespace, key))

    def keys(self, namespace: str) -> list[str]:
        start = len(self._key(namespace, ""))
        return sorted(str(k)[start:] for k in self._redis.scan_iter(match=self._key(namespace, "*"), count=500))

    def items(self, namespace: str) -> list[tuple[str, str]]:
        keys = self.keys(namespace)
        if not keys:
            return []
        values = self._redis.mget([self._key(namespace, k) for k in keys])
        return [(k, str(v)) for k, v in zip(keys, values) if v is not None]

    def update(
        self, namespace: str, key: str, step: Callable[[str | None], str | None], ttl: float | None = None
    ) -> str | None:
        full = self._key(namespace, key)
        result: dict[str, str | None] = {}

        def transaction(pipe: Any) -> None:
            old = pipe.get(full)
            new = step(None if old is None else str(old))
            result["new"] = new
            pipe.multi()
            if new is None:
                pipe.delete(full)
            else:
                pipe.set(full, new, px=_ms(ttl) if ttl is not None else None)

        self._redis.transaction(transaction, full)
        return result.get("new")

    # -- claims ---------------------------------------------------------------------

    def claim(self, keys: Sequence[str], owner: str, ttl: float, *, steal_from: str | None = None) -> bool:
        value = claim_value(CLAIM_IN_FLIGHT, owner)
        taken: list[str] = []
        for key in keys:
            full = self._key(CLAIMS, key)
            ok = bool(self._redis.set(full, value, nx=True, px=_ms(ttl)))
            if not ok and steal_from:
                ok = bool(self._cas(keys=[full], args=[claim_value(CLAIM_IN_FLIGHT, steal_from), value, _ms(ttl)]))
            if not ok:
                for done in taken:
                    self._cad(keys=[done], args=[value])
                return False
            taken.append(full)
        return True

    def settle(self, keys: Sequence[str], owner: str, ttl: float) -> None:
        for key in keys:
            self._settle(keys=[self._key(CLAIMS, key)], args=[f"|{owner}", claim_value(CLAIM_DONE, owner), _ms(ttl)])

    def release(self, keys: Sequence[str], owner: str) -> None:
        for key in keys:
            self._cad(keys=[self._key(CLAIMS, key)], args=[claim_value(CLAIM_IN_FLIGHT, owner)])

    def close(self) -> None:
        self._redis.close()

"""One behaviour suite, run on both backends: SQLite (WAL, the default) and a real Redis."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.state import CLAIM_DONE, CLAIM_IN_FLIGHT, GuardedStore, RedisStateStore, SqliteStateStore, StateStore, claim_state
from bot.state.factory import open_state_store
from common.errors import ConfigError
from common.settings import HwbotSettings
from tests.harness.backends import BACKENDS, open_backend_store
from tests.harness.redis_server import RedisServer, redis_server  # noqa: F401 - session fixture

pytestmark = pytest.mark.parametrize("backend", BACKENDS)


@pytest.fixture
def store(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[StateStore]:
    opened = open_backend_store(backend, tmp_path, request)
    yield opened
    opened.close()


def test_values_expire_and_namespaces_are_apart(store: StateStore) -> None:
    store.put("thread", "C1:1.0", "1", ttl=0.3)
    store.put("session", "C1:1.0", "other")
    assert store.get("thread", "C1:1.0") == "1"
    assert store.keys("thread") == ["C1:1.0"] and store.items("session") == [("C1:1.0", "other")]
    time.sleep(0.45)
    assert store.get("thread", "C1:1.0") is None and store.keys("thread") == []
    assert store.get("session", "C1:1.0") == "other"
    assert store.add("thread", "C1:1.0", "2") and not store.add("thread", "C1:1.0", "3")
    store.delete("thread", "C1:1.0")
    assert store.get("thread", "C1:1.0") is None


def test_claims_are_all_or_nothing_and_owned(store: StateStore) -> None:
    keys = ["event:Ev1", "message:C1:1.0"]
    assert store.claim(keys, "w1", ttl=30)
    assert not store.claim(["event:Ev2", "message:C1:1.0"], "w2", ttl=30)  # same message, other event id
    assert store.claim(["event:Ev2"], "w2", ttl=30)  # the failed claim took nothing
    assert claim_state(store.get("claim", "event:Ev1")) == CLAIM_IN_FLIGHT
    store.settle(keys, "w2", ttl=30)  # not w2's: left alone
    assert claim_state(store.get("claim", "event:Ev1")) == CLAIM_IN_FLIGHT
    store.settle(keys, "w1", ttl=30)
    assert claim_state(store.get("claim", "message:C1:1.0")) == CLAIM_DONE
    store.release(keys, "w1")  # a done claim is not released
    assert not store.claim(keys, "w3", ttl=30)


def test_released_expired_and_stolen_claims(store: StateStore) -> None:
    assert store.claim(["event:A"], "w1", ttl=30)
    store.release(["event:A"], "w1")
    assert store.claim(["event:A"], "w2", ttl=0.3)
    time.sleep(0.45)
    assert store.claim(["event:A"], "w3", ttl=30)  # w2 died: its claim expired
    assert not store.claim(["event:A"], "w4", ttl=30, steal_from="w2")  # only a named dead owner's
    assert store.claim(["event:A"], "w4", ttl=30, steal_from="w3")
    store.settle(["event:A"], "w4", ttl=30)
    assert not store.claim(["event:A"], "w5", ttl=30, steal_from="w4")  # a done claim is never stolen


def test_concurrent_claims_have_exactly_one_winner(store: StateStore) -> None:
    winners: list[str] = []
    barrier = threading.Barrier(16)

    def contend(i: int) -> None:
        barrier.wait()
        if store.claim([f"event:Ev{i}", "message:C9:9.0"], f"w{i}", ttl=30):
            winners.append(f"w{i}")

    threads = [threading.Thread(target=contend, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(winners) == 1


def test_update_is_atomic(store: StateStore) -> None:
    barrier = threading.Barrier(12)

    def bump() -> None:
        barrier.wait()
        for _ in range(10):
            store.update("counter", "n", lambda old: str(int(old or "0") + 1))

    threads = [threading.Thread(target=bump) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert store.get("counter", "n") == "120"
    assert store.update("counter", "n", lambda old: None) is None
    assert store.get("counter", "n") is None


def test_the_factory_follows_the_settings(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    if backend == "sqlite":
        opened = open_state_store(HwbotSettings(state_dir=tmp_path, redis_url=""))
        assert isinstance(opened, GuardedStore) and isinstance(opened.backend, SqliteStateStore)
        assert opened.backend.path.parent == tmp_path
        return
    server: RedisServer = request.getfixturevalue("redis_server")
    opened = open_state_store(HwbotSettings(redis_url=server.url))
    assert isinstance(opened, GuardedStore) and isinstance(opened.backend, RedisStateStore)
    with pytest.raises(ConfigError) as info:
        RedisStateStore("redis://127.0.0.1:1/0")
    assert "HWBOT_REDIS_URL" in info.value.one_line()

"""Several real ``hwbot slack --http`` processes behave as one app, on both state backends.

Two deployments share one state (SQLite under ``HWBOT_STATE_DIR``, or Redis): ``A`` runs
one worker, ``B`` runs ``--workers 2``. A test talks to a chosen one, as a load balancer
would. Everything is on loopback against the fake Web API; the workers load the shared
session index (``built_index``) and are reused by every test of a backend.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.harness.fake_slack import FakeSlackApi
from tests.harness.redis_server import RedisServer, redis_server  # noqa: F401 - session fixture
from tests.harness.slack_requests import event_envelope, mention, message
from tests.harness.workers import BotProcess
from tests.slack.conftest import BOT_TOKEN, SIGNING_SECRET

pytestmark = pytest.mark.slow

QUESTION = "Where are TPUs strongest?"
RETRY = {"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"}


@dataclass
class Cluster:
    backend: str
    fake: FakeSlackApi
    a: BotProcess
    b: BotProcess

    def answers_to(self, ts: str) -> list[dict]:
        return [c.body for c in self.fake.calls("chat.postMessage", ok_only=True) if c.body.get("thread_ts") == ts]

    def wait_answer(self, ts: str, count: int = 1, timeout: float = 120.0) -> dict:
        try:
            calls = self.fake.wait_for("chat.postMessage", count, timeout=timeout, where=lambda c: c.body.get("thread_ts") == ts)
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n--- A:\n{self.a.log()[-2500:]}\n--- B:\n{self.b.log()[-2500:]}") from None
        return calls[0].body

    def restart_a(self) -> None:
        self.a.kill9()
        self.a = BotProcess(self.a.env, SIGNING_SECRET, port=self.a.port).start()
        self.a.wait_healthy()


@pytest.fixture(scope="module", params=["sqlite", "redis"])
def cluster(request: pytest.FixtureRequest, built_index: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    import os

    backend = str(request.param)
    fake = FakeSlackApi(token=BOT_TOKEN).start()
    home = tmp_path_factory.mktemp(f"workers-{backend}")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "HWBOT_")) or k == "HWBOT_NETGUARD"}
    env.update(
        SLACK_BOT_TOKEN=BOT_TOKEN, SLACK_SIGNING_SECRET=SIGNING_SECRET, HWBOT_SLACK_API_URL=fake.api_url,
        HWBOT_INDEX_DIR=str(built_index), HWBOT_STATE_DIR=str(home / "state"), HWBOT_FEEDBACK_DB=str(home / "feedback.sqlite3"),
        HF_HUB_OFFLINE="1",
    )
    if backend == "redis":
        server: RedisServer = request.getfixturevalue("redis_server")
        env["HWBOT_REDIS_URL"] = server.url
        env["HWBOT_REDIS_PREFIX"] = f"{home.name}:"
    a = BotProcess(env, SIGNING_SECRET).start()
    b = BotProcess(env, SIGNING_SECRET, workers=2).start()
    running = Cluster(backend, fake, a, b)
    try:
        a.wait_healthy()
        b.wait_healthy()
        yield running
    finally:
        codes = [running.a.stop(), running.b.stop()]
        fake.stop()
    assert codes == [0, 0], running.a.log()[-2000:] + running.b.log()[-2000:]
    for proc in (running.a, running.b):
        assert BOT_TOKEN not in proc.log() and QUESTION not in proc.log()  # no secret, no message text


#: The HTTP front (connection caps, deadlines, worker count) does not touch the state store:
#: these run on one backend, SQLite; the backend-dependent tests run on both.
front_only = pytest.mark.parametrize("cluster", ["sqlite"], indirect=True)


@front_only
def test_workers_flag_starts_that_many_worker_processes(cluster: Cluster) -> None:
    assert len(cluster.b.worker_pids()) == 2
    assert len(cluster.a.worker_pids()) == 1


def test_a_retry_on_the_other_worker_is_answered_once(cluster: Cluster) -> None:
    envelope = event_envelope(mention(QUESTION, channel="CWORKERS1"))
    ts = envelope["event"]["ts"]
    assert cluster.a.sender.event_envelope_json(envelope).status == 200
    cluster.wait_answer(ts)
    assert cluster.b.sender.event_envelope_json(envelope, extra_headers=RETRY).status == 200
    cluster.b.wait_line(f"duplicate mention delivery {envelope['event_id']}")
    assert len(cluster.answers_to(ts)) == 1


def test_simultaneous_delivery_to_both_workers_is_answered_once(cluster: Cluster) -> None:
    envelope = event_envelope(mention(QUESTION, channel="CWORKERS1"))
    ts = envelope["event"]["ts"]
    barrier = threading.Barrier(2)
    statuses: list[int] = []

    def deliver(proc: BotProcess) -> None:
        barrier.wait()
        statuses.append(proc.sender.event_envelope_json(envelope).status)

    threads = [threading.Thread(target=deliver, args=(p,)) for p in (cluster.a, cluster.b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert statuses == [200, 200]
    cluster.wait_answer(ts)
    _wait_either(cluster, f"duplicate mention delivery {envelope['event_id']}")
    assert len(cluster.answers_to(ts)) == 1


def _wait_either(cluster: Cluster, fragment: str) -> None:
    import time

    deadline = time.monotonic() + 60
    while fragment not in cluster.a.log() + cluster.b.log():
        assert time.monotonic() < deadline, "neither worker dropped the twin delivery"
        time.sleep(0.1)


def test_a_follow_up_on_the_other_worker_is_answered(cluster: Cluster) -> None:
    first = mention(QUESTION, channel="CWORKERS1")
    cluster.a.sender.event(first)
    cluster.wait_answer(first["ts"])
    follow = message("And why did GPUs become the default?", channel="CWORKERS1", thread_ts=first["ts"])
    assert cluster.b.sender.event(follow).status == 200
    cluster.wait_answer(first["ts"], 2)
    assert len(cluster.answers_to(first["ts"])) == 2


def test_after_kill_9_and_restart_a_follow_up_is_answered_and_an_old_retry_is_not(cluster: Cluster) -> None:
    envelope = event_envelope(mention(QUESTION, channel="CWORKERS2"))
    ts = envelope["event"]["ts"]
    cluster.a.sender.event_envelope_json(envelope)
    cluster.wait_answer(ts)
    cluster.fake.wait_for("reactions.remove", where=lambda c: c.body.get("timestamp") == ts)  # the work is over
    cluster.restart_a()
    assert cluster.a.sender.event_envelope_json(envelope, extra_headers=RETRY).status == 200
    cluster.a.wait_line(f"duplicate mention delivery {envelope['event_id']}")
    follow = message("Why would a TPU sit idle?", channel="CWORKERS2", thread_ts=ts)
    cluster.a.sender.event(follow)
    cluster.wait_answer(ts, 2)
    assert len(cluster.answers_to(ts)) == 2


def test_a_crash_after_the_ack_is_finished_after_the_restart(cluster: Cluster) -> None:
    event = mention(QUESTION, channel="CWORKERS3")
    before = len(cluster.fake.calls("reactions.add"))
    cluster.fake.delay_next("reactions.add", 20)  # the worker is stuck here, after the ack, when it dies
    assert cluster.a.sender.event(event).status == 200
    cluster.fake.wait_arrived("reactions.add", before + 1)
    cluster.restart_a()
    answer = cluster.wait_answer(event["ts"])
    assert answer["metadata"]["event_payload"]["message"] == f"CWORKERS3:{event['ts']}"
    cluster.fake.wait_for("reactions.remove", where=lambda c: c.body.get("timestamp") == event["ts"])
    assert len(cluster.answers_to(event["ts"])) == 1


def test_a_crash_after_the_post_is_not_answered_twice(cluster: Cluster) -> None:
    event = mention(QUESTION, channel="CWORKERS4")
    cluster.fake.delay_next("chat.postMessage", 20, after=True)  # posted, but dies before it hears back and settles
    cluster.a.sender.event(event)
    cluster.wait_answer(event["ts"])
    cluster.restart_a()
    # Whoever recovers it finds the earlier answer through its metadata and only removes the :eyes:.
    cluster.fake.wait_for("conversations.replies", where=lambda c: c.body.get("ts") == event["ts"])
    cluster.fake.wait_for("reactions.remove", where=lambda c: c.body.get("timestamp") == event["ts"])
    assert len(cluster.answers_to(event["ts"])) == 1


@front_only
def test_1100_idle_connections_do_not_stop_a_signed_event_from_being_acked(cluster: Cluster) -> None:
    idle: list[socket.socket] = []
    try:
        for _ in range(1100):
            idle.append(socket.create_connection(("127.0.0.1", cluster.a.port), timeout=10))
        event = mention(QUESTION, channel="CWORKERS5")
        reply = cluster.a.sender.event(event)
        assert reply.status == 200
        cluster.wait_answer(event["ts"])
    finally:
        for sock in idle:
            sock.close()
    garbage = cluster.a.sender.raw(json.dumps({"type": "event_callback"}), content_type="application/json", sign=False)
    assert garbage.status == 401


def test_sigterm_drains_in_flight_work_before_the_worker_exits(cluster: Cluster) -> None:
    envelope = event_envelope(mention(QUESTION, channel="CWORKERS6"))
    event = envelope["event"]
    before = len(cluster.fake.calls("reactions.add"))
    cluster.fake.delay_next("reactions.add", 3)  # in flight when the stop comes
    assert cluster.a.sender.event_envelope_json(envelope).status == 200
    cluster.fake.wait_arrived("reactions.add", before + 1)
    assert cluster.a.stop() == 0
    assert len(cluster.answers_to(event["ts"])) == 1  # answered by the stopping worker itself, before it exited
    assert "draining" in cluster.a.log()
    assert f"recovering pending event {envelope['event_id']} " not in cluster.b.log()
    cluster.a = BotProcess(cluster.a.env, SIGNING_SECRET, port=cluster.a.port).start()
    cluster.a.wait_healthy()


@front_only
def test_64_slowloris_and_64_slow_bodies_do_not_stop_a_signed_event_or_healthz(cluster: Cluster) -> None:
    """One client holds 128 half-sent requests on the two-worker deployment; Slack still gets its ack in time."""
    import time

    from tests.harness.slow_clients import SlowClients, timed_get

    with SlowClients(cluster.b.port, slowloris=64, slow_body=64, interval=0.5) as slow:
        time.sleep(1.0)  # every slow connection is open and trickling
        event = mention(QUESTION, channel="CWORKERS7")
        reply = cluster.b.sender.event(event)
        assert reply.status == 200
        assert reply.received_at - reply.sent_at < 3.0
        status, seconds = timed_get(f"http://127.0.0.1:{cluster.b.port}/healthz", timeout=5)
        assert status == 200 and seconds < 3.0
        cluster.wait_answer(event["ts"])
        # cut off: headers after 5 s, bodies after 7 s; on 2 loaded cores the sweep can lag, so allow 45 s
        deadline = time.monotonic() + 45
        while slow.socks and time.monotonic() < deadline:
            time.sleep(0.25)
        assert slow.closed_by_server == 128, slow.still_open()

"""Durable work: an event is written down before it is acknowledged, and finished by someone.

Slack never retries an event it saw acknowledged, so a worker that crashes between the
HTTP 200 and the answer would lose the question for good. So:

1. Before the ack (a Bolt middleware, which runs before the response is sent), each
   event that will be answered is recorded as *pending* in the shared state, owned by
   the receiving worker.
2. The worker that answers it deletes the record once the answer is posted (or once it
   knows there is nothing to post).
3. Every worker keeps a *heartbeat* key alive in the shared state. A pending record
   whose owner's heartbeat has expired belongs to a dead worker: any live worker takes
   it over atomically (only one wins) and finishes it. Before posting, it looks for the
   dead worker's answer in the thread (message metadata carries the event id), so an
   answer posted just before the crash is not posted twice; either way it removes the
   leftover :eyes: reaction.

A clean stop (``SIGTERM``) drains in-flight work first (see :mod:`bot.slack.server`), so
recovery is for ``kill -9``, OOM kills and power cuts.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from bot.state import StateStore, StateUnavailable

__all__ = ["PendingWork", "Heartbeat", "RecoveryLoop", "PendingRecord", "HEARTBEAT_TTL", "SCAN_INTERVAL"]

log = logging.getLogger("hwbot.slack.durable")

_PENDING = "pending"
_WORKERS = "worker"
#: A worker is presumed dead this long after its last heartbeat.
HEARTBEAT_TTL = 6.0
HEARTBEAT_INTERVAL = 2.0
#: How often a worker looks for dead workers' pending work.
SCAN_INTERVAL = 2.0
#: Pending work is forgotten after a day whatever happens (Slack's own retries stop after minutes).
PENDING_TTL = 24 * 3600.0

PendingRecord = dict[str, Any]


class Heartbeat:
    """Keeps ``worker:<id>`` alive in the shared state while this worker runs."""

    def __init__(self, state: StateStore, worker_id: str, *, ttl: float = HEARTBEAT_TTL, interval: float = HEARTBEAT_INTERVAL) -> None:
        self.state = state
        self.worker_id = worker_id
        self.ttl = ttl
        self.interval = interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def beat(self) -> None:
        self.state.put(_WORKERS, self.worker_id, str(time.time()), ttl=self.ttl)

    def start(self) -> "Heartbeat":
        self.beat()
        self._thread = threading.Thread(target=self._run, name="hwbot-heartbeat", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.beat()  # also the probe that finds a failed store back (bot.state.guard)
            except StateUnavailable:
                pass  # logged once per outage by the store
            except Exception as exc:  # a flaky store must not kill the heartbeat
                log.warning("heartbeat failed: %s", type(exc).__name__)

    def stop(self) -> None:
        """Stop beating and say so at once (a cleanly stopped worker has drained its work)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        try:
            self.state.delete(_WORKERS, self.worker_id)
        except Exception:
            pass


class PendingWork:
    """Pending records in the shared state, and the recovery of dead workers' ones."""

    def __init__(self, state: StateStore, worker_id: str) -> None:
        self.state = state
        self.worker_id = worker_id

    def record(self, event_id: str, record: PendingRecord) -> None:
        """Write the event down (before the ack). A redelivery keeps the first record."""
        data = dict(record, owner=self.worker_id, at=time.time())
        try:
            self.state.add(_PENDING, event_id, json.dumps(data), ttl=PENDING_TTL)
        except StateUnavailable:
            pass  # answered all the same; only a crash before the answer would lose it

    def adopt(self, event_id: str) -> None:
        """This worker now does the work (it won the claim), whoever recorded it."""

        def step(raw: str | None) -> str | None:
            if raw is None:
                return None
            data = json.loads(raw)
            data["owner"] = self.worker_id
            return json.dumps(data)

        try:
            self.state.update(_PENDING, event_id, step, ttl=PENDING_TTL)
        except StateUnavailable:
            pass

    def finish(self, event_id: str | None) -> None:
        if event_id:
            try:
                self.state.delete(_PENDING, event_id)
            except StateUnavailable:
                pass  # a leftover record is finished by recovery, which finds the posted answer

    def finish_if_mine(self, event_id: str | None) -> None:
        """Drop a record this worker wrote for a delivery that turned out to be a duplicate of finished work."""
        if event_id:
            try:
                self.state.update(_PENDING, event_id, lambda raw: None if raw and json.loads(raw).get("owner") == self.worker_id else raw,
                                  ttl=PENDING_TTL)
            except StateUnavailable:
                pass

    def get(self, event_id: str) -> PendingRecord | None:
        raw = self.state.get(_PENDING, event_id)
        return json.loads(raw) if raw else None

    def alive(self, worker_id: str | None) -> bool:
        return bool(worker_id) and (worker_id == self.worker_id or self.state.get(_WORKERS, str(worker_id)) is not None)

    def take_stale(self) -> list[tuple[str, PendingRecord, str]]:
        """Atomically take over every record whose owner is dead: ``(event_id, record, dead_owner)``."""
        taken: list[tuple[str, PendingRecord, str]] = []
        for event_id, raw in self.state.items(_PENDING):
            try:
                owner = json.loads(raw).get("owner")
            except ValueError:
                self.state.delete(_PENDING, event_id)
                continue
            if self.alive(owner):
                continue
            won: dict[str, Any] = {}

            def step(current: str | None, owner: str = str(owner), won: dict[str, Any] = won) -> str | None:
                if current is None:
                    return None
                data = json.loads(current)
                if data.get("owner") != owner:  # someone else took it first
                    return current
                won.update(data)
                data["owner"] = self.worker_id
                data["recovered_from"] = owner
                return json.dumps(data)

            self.state.update(_PENDING, event_id, step, ttl=PENDING_TTL)
            if won:
                taken.append((event_id, won, str(owner)))
        return taken


class RecoveryLoop:
    """A daemon thread: every few seconds, finish dead workers' pending work with ``finish``."""

    def __init__(self, pending: PendingWork, finish: Callable[[str, PendingRecord, str], None], *, interval: float = SCAN_INTERVAL) -> None:
        self.pending = pending
        self.finish = finish
        self.interval = interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def scan_once(self) -> int:
        count = 0
        for event_id, record, dead in self.pending.take_stale():
            log.info("recovering pending event %s from stopped worker %s", event_id, dead)
            try:
                self.finish(event_id, record, dead)
                count += 1
            except Exception:
                log.exception("recovering pending event %s failed", event_id)
        return count

    def start(self) -> "RecoveryLoop":
        self._thread = threading.Thread(target=self._run, name="hwbot-recovery", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while True:
            try:
                self.scan_once()
            except StateUnavailable:
                pass  # logged once per outage by the store
            except Exception as exc:
                log.warning("scanning for pending work failed: %s", type(exc).__name__)
            if self._stop.wait(self.interval):
                return

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

"""Slack in production: N concurrent events over two real worker processes, each retry to the other.

Two ``hwbot slack --http`` processes (one gunicorn worker each) share one state dir, as
two hosts behind a load balancer or a rolling deploy would; the fake Web API of the
Slack tests stands in for Slack. N signed ``app_mention`` events are released at once,
alternating between the workers, and every one is then redelivered as Slack's retry
(``X-Slack-Retry-Num: 1``) to the *other* worker. Exactly N answers must come out: none
lost, none twice. Reported: ack p50 and p99 (client side, send to complete response),
each worker's RSS after the run, and requests that did not get a 200. Then one client
opens 64 slowloris and 64 slow-body connections to the first worker and the time to
ack one more signed event and to answer ``/healthz`` is taken (the HTTP front's test).

Run alone: ``python -m bench.slack_workers [--index-dir DIR] [-n 200]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from bench.results import Section, Table, Target, fmt_ms
from bench.stats import median, percentile

__all__ = ["run_slack_workers", "measure"]

REPO = Path(__file__).resolve().parent.parent
_SECRET = "3c9a1f5e7b2d4c6a8e0f1b3d5c7a9e2f"
_TOKEN = "xoxb-0000000000-0000000000-benchWORKERStoken"
_QUESTIONS = ("When is a TPU a better choice than a GPU?", "Why did GPUs become the default accelerator?",
              "Where are TPUs strongest?", "Why would a TPU sit idle?")


def _rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def _send(sender: Any, body: str, retry: bool) -> tuple[int, float]:
    extra = {"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"} if retry else None
    started = time.perf_counter()
    try:
        status = sender.raw(body, content_type="application/json", extra_headers=extra).status
    except OSError:
        status = -1
    return status, time.perf_counter() - started


def _burst(jobs: list[tuple[Any, str, bool]]) -> list[tuple[int, float]]:
    barrier = threading.Barrier(min(len(jobs), 50))

    def one(job: tuple[Any, str, bool]) -> tuple[int, float]:
        try:
            barrier.wait(timeout=5)
        except threading.BrokenBarrierError:
            pass
        return _send(*job)

    with ThreadPoolExecutor(max_workers=50) as pool:
        return list(pool.map(one, jobs))


def measure(index_dir: Path, n: int = 200, answer_timeout: float = 600.0) -> dict[str, Any]:
    """Start the fake and two workers, fire the events and retries, count the answers."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    from tests.harness.fake_slack import BOT_USER_ID, FakeSlackApi
    from tests.harness.slack_requests import event_envelope
    from tests.harness.workers import BotProcess

    fake = FakeSlackApi(token=_TOKEN).start()
    home = Path(tempfile.mkdtemp(prefix="hwbot-bench-workers-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "HWBOT_"))}
    env.update(SLACK_BOT_TOKEN=_TOKEN, SLACK_SIGNING_SECRET=_SECRET, HWBOT_SLACK_API_URL=fake.api_url, HF_HUB_OFFLINE="1",
               HWBOT_INDEX_DIR=str(index_dir), HWBOT_STATE_DIR=str(home / "state"), HWBOT_FEEDBACK_DB=str(home / "fb.sqlite3"),
               PYTHONPATH=os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p))
    workers = [BotProcess(env, _SECRET).start(), BotProcess(env, _SECRET).start()]
    try:
        for w in workers:
            w.wait_healthy()
        envelopes = []
        for i in range(n):
            ts = f"1700000002.{i:06d}"
            event = {"type": "app_mention", "user": f"UBENCH{i:03d}", "ts": ts, "channel": "CBENCHW01", "event_ts": ts,
                     "text": f"<@{BOT_USER_ID}> {_QUESTIONS[i % len(_QUESTIONS)]}"}
            envelopes.append(json.dumps(event_envelope(event, event_id=f"EvBENCHW{i:05d}")))
        started = time.perf_counter()
        first = _burst([(workers[i % 2].sender, body, False) for i, body in enumerate(envelopes)])
        retries = _burst([(workers[(i + 1) % 2].sender, body, True) for i, body in enumerate(envelopes)])
        deadline = time.monotonic() + answer_timeout
        while time.monotonic() < deadline and len(fake.calls("reactions.remove", ok_only=True)) < n:
            time.sleep(0.1)
        time.sleep(1.0)  # let any stray duplicate land before counting
        seconds = time.perf_counter() - started
        per_thread = Counter(c.body.get("thread_ts") for c in fake.calls("chat.postMessage", ok_only=True))
        wanted = [f"1700000002.{i:06d}" for i in range(n)]
        rss = [_rss_mb(pid) for w in workers for pid in w.worker_pids()]
        slow = _under_slow_clients(workers[0], event_envelope, BOT_USER_ID)
    finally:
        codes = [w.stop() for w in workers]
        fake.stop()
        shutil.rmtree(home, ignore_errors=True)
    return {
        "events": n,
        "acks_s": [s for status, s in first if status == 200],
        "retry_acks_s": [s for status, s in retries if status == 200],
        "errors": sum(1 for status, _ in first + retries if status != 200),
        "answers": sum(per_thread[ts] for ts in wanted),
        "once": sum(1 for ts in wanted if per_thread[ts] == 1),
        "lost": sum(1 for ts in wanted if per_thread[ts] == 0),
        "twice": sum(1 for ts in wanted if per_thread[ts] > 1),
        "worker_rss_mb": rss,
        "exit_codes": codes,
        "seconds": seconds,
        **slow,
    }


def _under_slow_clients(worker: Any, event_envelope: Callable[..., dict], bot_user: str) -> dict[str, Any]:
    """Ack and /healthz times while one client holds 64 slowloris and 64 slow-body connections."""
    from tests.harness.slow_clients import SlowClients, timed_get

    with SlowClients(worker.port, slowloris=64, slow_body=64) as slow:
        time.sleep(1.0)
        event = {"type": "app_mention", "user": "UBENCHSLOW", "ts": "1700000003.000001", "channel": "CBENCHW02",
                 "event_ts": "1700000003.000001", "text": f"<@{bot_user}> {_QUESTIONS[0]}"}
        status, ack_s = _send(worker.sender, json.dumps(event_envelope(event, event_id="EvBENCHSLOW1")), False)
        health, health_s = timed_get(f"http://127.0.0.1:{worker.port}/healthz")
        deadline = time.monotonic() + 15
        while slow.socks and time.monotonic() < deadline:
            time.sleep(0.25)
        return {"slow_ack_status": status, "slow_ack_s": ack_s, "slow_health_status": health, "slow_health_s": health_s,
                "slow_closed_by_server": slow.closed_by_server, "slow_closed_after_s": 15 - max(0.0, deadline - time.monotonic())}


def run_slack_workers(engine: Callable[[], Any], index_dir: Path, *, n: int = 200) -> Section:
    """The bench section; ``engine()`` makes sure ``index_dir`` is built and fresh first."""
    engine()
    started = time.perf_counter()
    r = measure(index_dir, n)
    acks = r["acks_s"] + r["retry_acks_s"]
    p50, p99 = median(acks), percentile(acks, 99)
    rss = ", ".join(f"{m:.0f} MB" for m in r["worker_rss_mb"])
    return Section(
        key="slack_workers",
        title="Slack: two workers, every retry to the other one",
        intro=(f"Two real `hwbot slack --http` processes sharing one SQLite state; {n} signed events released together, "
               f"alternating between them, then each redelivered as a retry to the other worker."),
        tables=[Table(headers=["events", "requests", "ack p50", "ack p99", "errors", "answers", "lost", "twice", "worker RSS"],
                      rows=[[str(n), str(2 * n), fmt_ms(p50), fmt_ms(p99), str(r["errors"]), str(r["answers"]), str(r["lost"]),
                             str(r["twice"]), rss]]),
                Table(headers=["slow connections", "signed ack", "/healthz", "closed by the server"],
                      rows=[["64 slowloris + 64 slow body", f"{r['slow_ack_status']} in {fmt_ms(r['slow_ack_s'])}",
                             f"{r['slow_health_status']} in {fmt_ms(r['slow_health_s'])}",
                             f"{r['slow_closed_by_server']} of 128 within {r['slow_closed_after_s']:.0f} s"]])],
        targets=[Target(name="Exactly once over two workers", goal=f"exactly {n} answers, every request acked",
                        measured=f"{r['answers']} answers, {r['errors']} errors", holds=r["answers"] == n == r["once"] and not r["errors"]),
                 Target(name="Slow clients", goal="a signed event acked within 3 s under 128 slow connections",
                        measured=f"{r['slow_ack_status']} in {fmt_ms(r['slow_ack_s'])}",
                        holds=r["slow_ack_status"] == 200 and r["slow_ack_s"] < 3.0)],
        data=r,
        seconds=time.perf_counter() - started,
    )


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.slack_workers", description=__doc__.split("\n\n")[0])
    p.add_argument("--index-dir", type=Path, default=None, help="a built index (default: $HWBOT_INDEX_DIR, built if needed)")
    p.add_argument("-n", type=int, default=200, help="events (each also retried once)")
    args = p.parse_args(argv)
    from bot.engines import get_engine
    from common.settings import load_settings

    settings = load_settings()
    index_dir = Path(args.index_dir or settings.index_dir)
    get_engine(settings, index_dir=index_dir, progress=False)
    r = measure(index_dir, args.n)
    acks = r["acks_s"] + r["retry_acks_s"]
    summary = {k: v for k, v in r.items() if not k.endswith("acks_s")}
    summary.update(ack_p50_ms=round(median(acks) * 1000, 1), ack_p99_ms=round(percentile(acks, 99) * 1000, 1))
    print(json.dumps(summary))


if __name__ == "__main__":
    main()

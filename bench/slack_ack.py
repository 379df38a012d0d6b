"""Slack HTTP: ack latency of concurrent signed events, and that each is answered exactly once.

The real app (``bot.slack.app.build_app`` behind ``bot.slack.server.SlackHttpServer``) runs
on 127.0.0.1 over the real engine, talking to the fake Web API of the Slack tests. N
signed ``app_mention`` events are released at once from N threads; the ack is the HTTP
200 Slack waits for (it retries after 3 s). Then every event is redelivered once as
Slack's retry (``X-Slack-Retry-Num: 1``), also concurrently, and the posts are counted:
one answer per event, none lost, none twice.

The floor is a bare ``ThreadingHTTPServer`` on loopback that answers 200 at once,
hit by the same N concurrent signed requests: what the network stack and Python's
HTTP server cost before any Slack logic runs.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from bench.results import Section, Table, Target, fmt_ms, fmt_ratio
from bench.stats import median, percentile, ratio

__all__ = ["run_slack_ack", "ACK_P99_TARGET_S", "slack_available"]

ACK_P99_TARGET_S = 0.300
_SECRET = "8b1f3c5a7e9d2f4b6a8c0e1d3f5a7b9c"
_TOKEN = "xoxb-0000000000-0000000000-benchBOTtoken"
_QUESTIONS = (
    "When is a TPU a better choice than a GPU?",
    "Why are GPUs the default accelerator for AI?",
    "What does XLA require from my code?",
    "Which clouds offer TPUs?",
    "Should a team with custom CUDA kernels move to TPUs?",
)


def _repo_on_path() -> None:
    """The fake Web API lives in the tests package at the repository root."""
    root = str(Path(__file__).resolve().parent.parent)
    if root not in sys.path:
        sys.path.insert(0, root)


def slack_available() -> bool:
    _repo_on_path()
    try:
        import bot.slack.app  # noqa: F401
        import bot.slack.server  # noqa: F401
        import tests.harness.fake_slack  # noqa: F401
    except ImportError:
        return False
    return True


def _post(url: str, body: str, headers: dict[str, str]) -> tuple[int, float]:
    request = urllib.request.Request(url, data=body.encode("utf-8"), headers=headers, method="POST")
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=30) as resp:
            resp.read()
            status = resp.status
    except urllib.error.HTTPError as err:
        status = err.code
    except OSError:  # refused or reset: the request never got an ack
        status = 0
    return status, time.perf_counter() - start


def _signed(body: str, retry: int | None = None) -> dict[str, str]:
    from slack_sdk.signature import SignatureVerifier

    ts = str(int(time.time()))
    headers = {
        "Content-Type": "application/json",
        "X-Slack-Request-Timestamp": ts,
        "X-Slack-Signature": SignatureVerifier(_SECRET).generate_signature(timestamp=ts, body=body),
    }
    if retry is not None:
        headers["X-Slack-Retry-Num"] = str(retry)
        headers["X-Slack-Retry-Reason"] = "http_timeout"
    return headers


def _burst_here(url: str, bodies: list[str], retry: int | None = None) -> list[tuple[int, float]]:
    """Send every body from its own thread, all released together (runs in the client process)."""
    results: list[tuple[int, float]] = [(0, float("nan"))] * len(bodies)
    gate = threading.Barrier(len(bodies))

    def one(i: int) -> None:
        headers = _signed(bodies[i], retry)
        gate.wait()
        results[i] = _post(url, bodies[i], headers)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(bodies))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def _burst(url: str, bodies: list[str], retry: int | None = None) -> list[tuple[int, float]]:
    """A burst from a separate client process, as Slack's requests come from outside.

    Fifty client threads in the server's own process would compete with it for the GIL
    and make the server look slower than it is; a second process on loopback does not.
    """
    with tempfile.TemporaryDirectory(prefix="hwbot-bench-burst-") as tmp:
        path = Path(tmp) / "bodies.json"
        path.write_text(json.dumps(bodies), encoding="utf-8")
        cmd = [sys.executable, "-m", "bench.slack_ack", "--burst", url, str(path), "" if retry is None else str(retry)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=str(Path(__file__).resolve().parent.parent))
    if proc.returncode != 0:
        raise RuntimeError(f"burst client failed: {proc.stderr.strip()[-300:]}")
    return [(int(status), float(secs)) for status, secs in json.loads(proc.stdout.strip().splitlines()[-1])]


#: listen() backlog of the floor server: enough for every request of a burst to queue.
FLOOR_BACKLOG = 128


class _FloorServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = FLOOR_BACKLOG


class _Ok(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()


def _floor(bodies: list[str]) -> list[tuple[int, float]]:
    server = _FloorServer(("127.0.0.1", 0), _Ok)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        return _burst(f"http://127.0.0.1:{server.server_address[1]}/slack/events", bodies)
    finally:
        server.shutdown()
        server.server_close()


def _events(n: int) -> list[dict[str, Any]]:
    from tests.harness.fake_slack import BOT_USER_ID
    from tests.harness.slack_requests import event_envelope

    out = []
    for i in range(n):
        ts = f"1700000001.{i:06d}"
        event = {"type": "app_mention", "user": f"UBENCH{i:03d}", "text": f"<@{BOT_USER_ID}> {_QUESTIONS[i % len(_QUESTIONS)]}",
                 "ts": ts, "channel": "CBENCH001", "event_ts": ts}
        out.append(event_envelope(event, event_id=f"EvBENCH{i:05d}"))
    return out


def _wait_answers(fake: Any, n: int, timeout: float) -> None:
    """Until every event's work finished (its 'working' reaction removed) or the timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and len(fake.calls("reactions.remove", ok_only=True)) < n:
        time.sleep(0.05)


def _run_app(engine: Any, envelopes: list[dict[str, Any]], *, backlog: int | None, answer_timeout: float) -> dict[str, Any]:
    """One fresh app (fresh dedupe memory) and fake Web API; a burst, its retries, the posts counted.

    ``backlog`` overrides the server's listen() backlog for a what-if run; None runs it as shipped.
    """
    import bot.slack.server as server_mod
    from bot.slack.app import build_app
    from bot.slack.core import EngineCore
    from bot.slack.feedback import FeedbackStore
    from bot.slack.services import SlackServices
    from bot.slack.settings import SlackSettings
    from tests.harness.fake_slack import FakeSlackApi

    bodies = [json.dumps(e) for e in envelopes]
    n = len(envelopes)
    fake = FakeSlackApi(token=_TOKEN).start()
    tmp = Path(tempfile.mkdtemp(prefix="hwbot-bench-slack-"))
    settings = SlackSettings(SLACK_BOT_TOKEN=_TOKEN, SLACK_SIGNING_SECRET=_SECRET, SLACK_APP_TOKEN="",
                             HWBOT_SLACK_API_URL=fake.api_url, HWBOT_ALLOWED_CHANNELS="", HWBOT_FEEDBACK_DB=tmp / "fb.sqlite3")
    services = SlackServices(settings=settings, core=EngineCore(engine), feedback=FeedbackStore(settings.feedback_db))
    server_cls = server_mod._Server
    shipped = server_cls.request_queue_size
    try:
        if backlog is not None:
            server_cls.request_queue_size = backlog
        server = server_mod.SlackHttpServer(build_app(services), host="127.0.0.1", port=0).start()
    finally:
        server_cls.request_queue_size = shipped
    try:
        first = _burst(server.url, bodies)
        retries = _burst(server.url, bodies, retry=1)
        _wait_answers(fake, n, answer_timeout)
        time.sleep(0.5)  # let any stray duplicate land before counting
        posts = fake.calls("chat.postMessage", ok_only=True)
        auth_calls = len(fake.calls("auth.test"))
    finally:
        server.shutdown()
        fake.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    per_thread = Counter(p.body.get("thread_ts") for p in posts)
    wanted = [e["event"]["ts"] for e in envelopes]
    return {
        "backlog": backlog if backlog is not None else shipped,
        "acks": [sec for status, sec in first if status == 200],
        "retry_acks": [sec for status, sec in retries if status == 200],
        "failed": sum(1 for status, _ in first + retries if status != 200),
        "once": sum(1 for ts in wanted if per_thread[ts] == 1),
        "lost": sum(1 for ts in wanted if per_thread[ts] == 0),
        "twice": sum(1 for ts in wanted if per_thread[ts] > 1),
        "auth_test_calls": auth_calls,
    }


def _row(label: str, samples: list[float], floor_p99: float) -> list[str]:
    p99 = percentile(samples, 99)
    return [label, fmt_ms(median(samples)), fmt_ms(p99), fmt_ms(max(samples, default=float("nan"))), fmt_ratio(ratio(p99, floor_p99))]


def run_slack_ack(engine: Any, *, n: int, answer_timeout: float = 300.0, what_if_backlog: int | None = FLOOR_BACKLOG) -> Section:
    """Measure the app as shipped; with ``what_if_backlog`` also with that listen() backlog."""
    _repo_on_path()
    started = time.perf_counter()
    envelopes = _events(n)
    floor = [sec for status, sec in _floor([json.dumps(e) for e in envelopes]) if status == 200]
    floor_p99 = percentile(floor, 99)
    runs = [_run_app(engine, envelopes, backlog=None, answer_timeout=answer_timeout)]
    if what_if_backlog is not None and what_if_backlog != runs[0]["backlog"]:
        runs.append(_run_app(engine, envelopes, backlog=what_if_backlog, answer_timeout=answer_timeout))
    rows = [_row(f"bare HTTP 200 server, listen backlog {FLOOR_BACKLOG} (floor)", floor, floor_p99)]
    outcome_rows = []
    for r in runs:
        name = "hwbot Slack app as shipped" if r is runs[0] else f"what-if: the app with listen backlog {r['backlog']}"
        name += f" (backlog {r['backlog']})" if r is runs[0] else ""
        rows.append(_row(f"{name}: {n} concurrent signed app_mention events", r["acks"], floor_p99))
        rows.append(_row(f"{name}: the same {n} redelivered as Slack retries", r["retry_acks"], floor_p99))
        outcome_rows.append([name, str(n), str(len(r["acks"])), str(r["failed"]), str(r["once"]), str(r["lost"]), str(r["twice"]),
                             str(r["auth_test_calls"])])
    shipped = runs[0]
    p50, p99 = median(shipped["acks"]), percentile(shipped["acks"], 99)
    targets = [
        Target(name="Slack ack latency", goal="p99 < 300 ms, every event acked",
               measured=f"p99 {fmt_ms(p99)}, {len(shipped['acks'])}/{n} acked",
               holds=p99 < ACK_P99_TARGET_S and len(shipped["acks"]) == n),
        Target(name="Slack delivery", goal="no event lost, no duplicate answer (retries included)",
               measured=f"{shipped['lost']} lost, {shipped['twice']} duplicated, {shipped['failed']} requests without a 200",
               holds=not shipped["lost"] and not shipped["twice"] and not shipped["failed"]),
    ]
    notes = ["Ack time is from just before the request is sent to the complete response, on the client side; "
             "a request that is refused or reset counts as not acked."]
    notes.append("The requests come from a separate client process (50 threads), so client and server do not share a GIL.")
    if len(runs) > 1:
        notes.append(f"The what-if run raises only the listen() backlog of the app's HTTP server (Python's default is 5): "
                     f"with {n} connections arriving at once, a short accept queue drops SYNs, which the client resends after 1 s.")
    return Section(
        key="slack",
        title="Slack HTTP ack",
        intro=(f"The real Bolt app and HTTP server on 127.0.0.1 with the real engine and the fake Web API from "
               f"tests/slack; {n} signed events released together from {n} threads, then each redelivered once as a retry."),
        tables=[
            Table(headers=["requests", "ack p50", "ack p99", "max", "p99 vs floor"], rows=rows),
            Table(headers=["app", "events", "acked 200", "requests without a 200", "answered once", "lost", "answered twice or more",
                           "auth.test calls"],
                  rows=outcome_rows),
        ],
        targets=targets,
        notes=notes,
        data={"ack_s": shipped["acks"], "floor_s": floor, "retry_s": shipped["retry_acks"], "p50_s": p50, "p99_s": p99,
              "lost": shipped["lost"], "duplicated": shipped["twice"], "failed": shipped["failed"],
              "what_if": runs[1] if len(runs) > 1 else None},
        seconds=time.perf_counter() - started,
    )


if __name__ == "__main__":  # the client: python -m bench.slack_ack --burst URL BODIES.json [RETRY]
    if len(sys.argv) == 5 and sys.argv[1] == "--burst":
        payload = json.loads(Path(sys.argv[3]).read_text(encoding="utf-8"))
        retry_num = int(sys.argv[4]) if sys.argv[4] else None
        print(json.dumps(_burst_here(sys.argv[2], payload, retry_num)))
    else:
        sys.exit("usage: python -m bench.slack_ack --burst URL BODIES.json [RETRY]")

"""A small fake of Slack's Web API on 127.0.0.1, for end-to-end tests.

It accepts what slack_sdk sends (JSON or form bodies, a ``Bearer`` token), records
every call as (method, parsed body, headers, status, time), and answers like Slack
for the methods hwbot uses. A test can script failures for the next N calls of a
method, e.g. a 429 with ``Retry-After``. ``/webhook/<id>`` plays the part of a
``response_url``. ``/socket`` is a minimal WebSocket endpoint (RFC 6455, text frames,
ping/pong, close) standing in for Socket Mode: the test pushes envelopes and reads
the app's acknowledgements.
"""

from __future__ import annotations

import itertools
import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

from tests.harness.websocket import accept_key, frame, read_frame

BOT_USER_ID = "UHWBOT01"
BOT_ID = "BHWBOT01"
TEAM_ID = "THWTEAM1"


@dataclass
class Call:
    method: str
    body: dict[str, Any]
    headers: dict[str, str]
    status: int
    at: float  # time.time() when the request arrived
    response: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Failure:
    status: int
    payload: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


def _parse_body(raw: bytes, content_type: str) -> dict[str, Any]:
    if not raw:
        return {}
    text = raw.decode("utf-8")
    if "json" in content_type or text.lstrip().startswith("{"):
        data = json.loads(text)
        return data if isinstance(data, dict) else {"_": data}
    out: dict[str, Any] = {}
    for key, values in parse_qs(text, keep_blank_values=True).items():
        value: Any = values[0]
        if isinstance(value, str) and value[:1] in "[{":
            try:
                value = json.loads(value)
            except ValueError:
                pass
        out[key] = value
    return out


class FakeSlackApi:
    """Start with :meth:`start`; point ``HWBOT_SLACK_API_URL`` at :attr:`api_url`."""

    def __init__(self, *, token: str, app_token: str | None = None) -> None:
        self.token = token
        self.app_token = app_token
        self._calls: list[Call] = []
        self._cond = threading.Condition()
        self._failures: dict[str, list[_Failure]] = {}
        self._delays: dict[str, list[float]] = {}
        #: Every message posted, per channel, as Slack would return it from conversations.history.
        self.messages: dict[str, list[dict[str, Any]]] = {}
        self._ts = itertools.count(1)
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._ws: socket.socket | None = None
        self._ws_lock = threading.Lock()
        self.socket_acks: list[dict[str, Any]] = []
        self._arrived: dict[str, int] = {}

    # -- lifecycle ------------------------------------------------------------------

    def start(self) -> "FakeSlackApi":
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                return

            def do_POST(self) -> None:  # noqa: N802
                fake._handle(self)

            def do_GET(self) -> None:  # noqa: N802
                if self.path.startswith("/socket") and "websocket" in (self.headers.get("Upgrade") or "").lower():
                    fake._websocket(self)
                else:
                    fake._handle(self)

        class Server(ThreadingHTTPServer):
            def handle_error(self, request: Any, client_address: Any) -> None:
                # A worker killed mid-call leaves a dead socket behind: that is the test, not an error.
                return

        self._server = Server(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        with self._ws_lock:
            if self._ws is not None:
                try:
                    self._ws.close()
                except OSError:
                    pass
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.server_address[1])

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/"

    def webhook_url(self, name: str = "hook") -> str:
        return f"http://127.0.0.1:{self.port}/webhook/{name}"

    # -- scripting and inspection ---------------------------------------------------

    def fail_next(
        self,
        method: str,
        *,
        status: int = 429,
        error: str = "ratelimited",
        retry_after: int | None = 1,
        times: int = 1,
    ) -> None:
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
        with self._cond:
            self._failures.setdefault(method, []).extend(
                _Failure(status, {"ok": False, "error": error}, headers) for _ in range(times)
            )

    def delay_next(self, method: str, seconds: float, *, times: int = 1, after: bool = False) -> None:
        """Hold the next ``times`` calls of ``method`` for ``seconds`` (to crash a worker mid-work).

        ``after=True`` does the call first (a post is stored and recorded) and holds only the response.
        """
        with self._cond:
            self._delays.setdefault(method, []).extend([-seconds if after else seconds] * times)

    def wait_arrived(self, method: str, count: int = 1, *, timeout: float = 60.0) -> None:
        """Block until ``count`` calls of ``method`` *arrived* (even if still being held by :meth:`delay_next`)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._arrived.get(method, 0) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"timed out waiting for {count} x {method} to arrive")
                self._cond.wait(left)

    def calls(self, method: str | None = None, *, ok_only: bool = False) -> list[Call]:
        with self._cond:
            out = [c for c in self._calls if method is None or c.method == method]
        return [c for c in out if c.status == 200] if ok_only else out

    def wait_for(
        self,
        method: str,
        count: int = 1,
        *,
        timeout: float = 60.0,
        where: Callable[[Call], bool] | None = None,
    ) -> list[Call]:
        """Block until ``count`` successful calls of ``method`` (matching ``where``) arrived."""

        def matching() -> list[Call]:
            return [
                c for c in self._calls if c.method == method and c.status == 200 and (where is None or where(c))
            ]

        deadline = time.monotonic() + timeout
        with self._cond:
            while len(matching()) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    seen = sorted({c.method for c in self._calls})
                    raise AssertionError(f"timed out waiting for {count} x {method}; calls seen: {seen}")
                self._cond.wait(left)
            return matching()

    def all_bodies_text(self) -> str:
        """Every recorded request body, as one JSON string (for 'never sent' assertions)."""
        with self._cond:
            return json.dumps([c.body for c in self._calls], ensure_ascii=False)

    # -- Socket Mode ----------------------------------------------------------------

    def wait_socket_connected(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._ws is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError("the app never opened the Socket Mode connection")
                self._cond.wait(left)

    def push_envelope(self, envelope: dict[str, Any]) -> None:
        """Send one Socket Mode envelope to the connected app (a server frame: unmasked text)."""
        with self._ws_lock:
            assert self._ws is not None, "no Socket Mode connection"
            self._ws.sendall(frame(0x1, json.dumps(envelope).encode()))

    def wait_ack(self, envelope_id: str, timeout: float = 30.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for ack in self.socket_acks:
                    if ack.get("envelope_id") == envelope_id:
                        return ack
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no acknowledgement for envelope {envelope_id}")
                self._cond.wait(left)

    def _websocket(self, req: BaseHTTPRequestHandler) -> None:
        accept = accept_key(req.headers.get("Sec-WebSocket-Key") or "")
        req.send_response(101, "Switching Protocols")
        req.send_header("Upgrade", "websocket")
        req.send_header("Connection", "Upgrade")
        req.send_header("Sec-WebSocket-Accept", accept)
        req.end_headers()
        req.wfile.flush()
        req.close_connection = True
        conn: socket.socket = req.connection
        with self._cond:
            self._calls.append(Call("socket.connect", {}, {}, 101, time.time()))
            with self._ws_lock:
                self._ws = conn
                conn.sendall(frame(0x1, json.dumps({"type": "hello", "num_connections": 1}).encode()))
            self._cond.notify_all()
        try:
            while True:
                opcode, payload = read_frame(req.rfile)
                if opcode == 0x8:  # close
                    with self._ws_lock:
                        conn.sendall(frame(0x8, payload[:2]))
                    return
                if opcode == 0x9:  # ping -> pong
                    with self._ws_lock:
                        conn.sendall(frame(0xA, payload))
                elif opcode == 0x1:
                    with self._cond:
                        self.socket_acks.append(json.loads(payload.decode()))
                        self._cond.notify_all()
        except (ConnectionError, OSError, ValueError):
            return
        finally:
            with self._ws_lock:
                if self._ws is conn:
                    self._ws = None

    # -- the fake itself ------------------------------------------------------------

    def _handle(self, req: BaseHTTPRequestHandler) -> None:
        path = req.path.partition("?")[0]
        length = int(req.headers.get("Content-Length") or 0)
        raw = req.rfile.read(length) if length else b""
        body = _parse_body(raw, req.headers.get("Content-Type") or "")
        query = req.path.partition("?")[2]
        if query:  # slack_sdk sends read methods (conversations.replies/history) as GET with a query string
            body.update({k: v[0] for k, v in parse_qs(query, keep_blank_values=True).items()})
        headers = {k.lower(): v for k, v in req.headers.items()}
        delay = 0.0
        if path.startswith("/webhook/"):
            method = "response_url"
            extra: dict[str, str] = {}
            status, payload = 200, dict[str, Any](ok=True)
        elif path.startswith("/api/"):
            method = path[len("/api/") :]
            with self._cond:
                self._arrived[method] = self._arrived.get(method, 0) + 1
                self._cond.notify_all()
                delays = self._delays.get(method)
                delay = delays.pop(0) if delays else 0.0
            if delay > 0:
                time.sleep(delay)
            status, payload, extra = self._answer(method, body, headers)
        else:
            method, status, payload, extra = path, 404, {"ok": False, "error": "unknown_method"}, {}
        with self._cond:
            self._calls.append(Call(method, body, headers, status, time.time(), payload))
            self._cond.notify_all()
        if path.startswith("/api/") and delay < 0:
            time.sleep(-delay)
        data = json.dumps(payload).encode()
        req.send_response(status)
        req.send_header("Content-Type", "application/json; charset=utf-8")
        for key, value in extra.items():
            req.send_header(key, value)
        req.send_header("Content-Length", str(len(data)))
        req.end_headers()
        req.wfile.write(data)

    def _conversation(self, method: str, body: dict[str, Any]) -> list[dict[str, Any]]:
        """Posted messages like Slack returns them: a thread's replies, or history after ``oldest``.

        Metadata is returned only with ``include_all_metadata``, as Slack does.
        """
        channel = str(body.get("channel"))
        with self._cond:
            stored = [dict(m) for m in self.messages.get(channel, [])]
        if method == "conversations.replies":
            root = str(body.get("ts"))
            found = [m for m in stored if m.get("thread_ts") == root or m["ts"] == root]
        else:
            oldest = float(body.get("oldest") or 0)
            found = [m for m in stored if float(m["ts"]) > oldest]
        if not _truthy(body.get("include_all_metadata")):
            for m in found:
                m.pop("metadata", None)
        return found

    def _answer(self, method: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, dict[str, Any], dict[str, str]]:
        with self._cond:
            queue = self._failures.get(method)
            failure = queue.pop(0) if queue else None
        if failure is not None:
            return failure.status, failure.payload, failure.headers
        auth = headers.get("authorization", "")
        if method == "apps.connections.open":
            ok = self.app_token is not None and auth == f"Bearer {self.app_token}"
            if not ok:
                return 200, {"ok": False, "error": "invalid_auth"}, {}
            return 200, {"ok": True, "url": f"ws://127.0.0.1:{self.port}/socket"}, {}
        if auth != f"Bearer {self.token}":
            return 200, {"ok": False, "error": "invalid_auth"}, {}
        if method == "auth.test":
            return 200, {
                "ok": True,
                "url": "https://hwbot-test.example/",
                "team": "hwbot test",
                "user": "hwbot",
                "team_id": TEAM_ID,
                "user_id": BOT_USER_ID,
                "bot_id": BOT_ID,
            }, {}
        if method == "chat.postMessage":
            ts = f"1700000000.{next(self._ts):06d}"
            channel = str(body.get("channel"))
            stored: dict[str, Any] = {"type": "message", "ts": ts, "text": body.get("text"), "bot_id": BOT_ID, "user": BOT_USER_ID}
            if body.get("thread_ts"):
                stored["thread_ts"] = body["thread_ts"]
            if isinstance(body.get("metadata"), dict):
                stored["metadata"] = body["metadata"]
            with self._cond:
                self.messages.setdefault(channel, []).append(stored)
            return 200, {"ok": True, "channel": channel, "ts": ts, "message": {"ts": ts, "text": body.get("text")}}, {}
        if method in ("conversations.replies", "conversations.history"):
            return 200, {"ok": True, "messages": self._conversation(method, body), "has_more": False}, {}
        if method == "chat.getPermalink":
            ts = str(body.get("message_ts") or "").replace(".", "")
            return 200, {"ok": True, "channel": body.get("channel"), "permalink": f"https://hwbot-test.example/archives/{body.get('channel')}/p{ts}"}, {}
        if method.startswith("assistant.threads."):
            return 200, {"ok": True}, {}
        if method == "chat.postEphemeral":
            return 200, {"ok": True, "message_ts": f"1700000000.{next(self._ts):06d}"}, {}
        if method == "chat.update":
            return 200, {"ok": True, "channel": body.get("channel"), "ts": body.get("ts")}, {}
        if method == "views.open":
            return 200, {"ok": True, "view": {"id": "VHWBOT01", "callback_id": (body.get("view") or {}).get("callback_id")}}, {}
        if method in ("reactions.add", "reactions.remove", "api.test"):
            return 200, {"ok": True}, {}
        return 200, {"ok": False, "error": "unknown_method"}, {}


def _truthy(value: Any) -> bool:
    return value in (True, 1, "1", "true", "True")

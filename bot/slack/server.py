"""HTTP mode: ``POST /slack/events`` on the address you choose, served by the stdlib.

Bolt's own development server binds every interface and handles one request at a
time. This one binds exactly the host it is given (``127.0.0.1`` by default), serves
requests on threads (a slow ``views.open`` never delays another team member's ack),
accepts port 0 for an ephemeral port, and caps request bodies. Signature checks and
stale-request refusal are Bolt's ``RequestVerification`` (HTTP 401), which runs before
any listener.
"""

from __future__ import annotations

import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from slack_bolt import App, BoltRequest, BoltResponse

__all__ = ["SlackHttpServer", "EVENTS_PATH", "MAX_BODY_BYTES", "LISTEN_BACKLOG"]

log = logging.getLogger("hwbot.slack.server")

EVENTS_PATH = "/slack/events"
LISTEN_BACKLOG = 128
#: Slack payloads are a few KB; a modal submission is the largest. Anything past this is refused.
MAX_BODY_BYTES = 1_000_000


class _Handler(BaseHTTPRequestHandler):
    server: "_Server"
    protocol_version = "HTTP/1.1"
    server_version = "hwbot"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        # Request lines only (no bodies, no headers), and only when debugging.
        log.debug("%s %s", self.address_string(), format % args)

    def _reply(self, status: int, body: str | bytes = b"", headers: dict[str, Any] | None = None) -> None:
        data = body.encode("utf-8") if isinstance(body, str) else body
        self.send_response(status)
        for key, values in (headers or {}).items():
            if key.lower() == "content-length":
                continue
            for value in values if isinstance(values, (list, tuple)) else [values]:
                self.send_header(key, str(value))
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if data:
            self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        path = self.path.partition("?")[0]
        if path == "/healthz":
            self._reply(200, "ok", {"Content-Type": "text/plain"})
        else:
            self._reply(404, "not found", {"Content-Type": "text/plain"})

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        path, _, query = self.path.partition("?")
        if path != EVENTS_PATH:
            self._reply(404, "not found", {"Content-Type": "text/plain"})
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if length < 0 or length > MAX_BODY_BYTES:
            self.close_connection = True
            self._reply(413, "payload too large", {"Content-Type": "text/plain"})
            return
        raw = self.rfile.read(length)
        try:
            body = raw.decode("utf-8")
        except UnicodeDecodeError:
            self._reply(400, "body must be UTF-8", {"Content-Type": "text/plain"})
            return
        headers = {k.lower(): self.headers.get_all(k) or [] for k in self.headers}
        stamp = (headers.get("x-slack-request-timestamp") or ["0"])[0]
        if not stamp.strip().isdigit():
            # slack_sdk's verifier would raise on int() and Bolt would answer 500; it is simply unsigned.
            log.warning("refused a request with a malformed signature timestamp")
            self._reply(401, '{"error": "invalid request"}', {"Content-Type": "application/json"})
            return
        request = BoltRequest(body=body, query=query, headers=headers)
        response: BoltResponse = self.server.app.dispatch(request)
        if response.status == 401:
            log.warning("refused a request with a bad or stale signature")
        self._reply(response.status, response.body or "", response.headers)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    #: listen() backlog. The stdlib default of 5 makes the kernel reset connections when
    #: Slack delivers a burst (64 simultaneous events: 48 resets at 5, none at 128).
    request_queue_size = LISTEN_BACKLOG

    def __init__(self, address: tuple[str, int], app: App) -> None:
        self.app = app
        super().__init__(address, _Handler)


class SlackHttpServer:
    """Serve a Bolt app on ``host:port`` (port 0 picks a free one; see :attr:`port`)."""

    def __init__(self, app: App, host: str = "127.0.0.1", port: int = 3000) -> None:
        self._server = _Server((host, port), app)
        self.host = host
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}{EVENTS_PATH}"

    def serve_forever(self) -> None:
        """Block until :meth:`shutdown` (or Ctrl-C in the caller)."""
        try:
            self._server.serve_forever(poll_interval=0.2)
        finally:
            self._server.server_close()

    def start(self) -> "SlackHttpServer":
        """Serve on a background thread (tests, embedding)."""
        self._thread = threading.Thread(target=self.serve_forever, name="hwbot-slack-http", daemon=True)
        self._thread.start()
        return self

    def shutdown(self) -> None:
        self._server.shutdown()
        if self._thread is not None:
            self._thread.join(timeout=5)

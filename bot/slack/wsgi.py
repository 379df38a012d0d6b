"""HTTP mode in production: gunicorn's threaded workers serving Bolt's WSGI adapter.

Why gunicorn + WSGI (and not uvicorn + ASGI): the Bolt app, the engine and every
listener are synchronous, and Bolt's WSGI adapter dispatches them as they are; an ASGI
server would run the same synchronous ``App.dispatch`` on its event loop or a thread
pool anyway. gunicorn is already a dependency, and it brings what a hand-written server
lacked: a master that forks ``--workers N`` processes and respawns a dead one, graceful
``SIGTERM`` (stop accepting, finish requests, then our drain of in-flight answers), a
cap on connections per worker, limits on request lines and headers, and timeouts.

One gap is closed here: gunicorn 27's threaded worker hands every new connection to a
pool thread that waits up to 5 s for its first byte, so 1,100 idle connections tie up
the pool for minutes. :class:`HwbotThreadWorker` parks a new connection on the event
poller instead, and hands it to a thread only once bytes arrive; a connection that
sends nothing within ``keepalive`` seconds is closed (the read timeout).

Before Bolt sees a request, :class:`SlackWsgi` checks it over the *raw bytes*: a body
larger than ``MAX_BODY_BYTES`` gets 413 unread, a missing or bad signature or a stale
timestamp 401, and only then is the body parsed: a body that is not UTF-8, not a JSON
object, or a form whose ``payload`` is not one, gets 400. Nothing unsigned is ever
parsed, and nothing malformed reaches Bolt, so no request logs a traceback.
"""

from __future__ import annotations

import io
import json
import logging
import selectors
import time
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any
from urllib.parse import parse_qs

from gunicorn.workers.gthread import TConn, ThreadWorker
from slack_bolt.adapter.wsgi import SlackRequestHandler
from slack_sdk.signature import SignatureVerifier

__all__ = ["SlackWsgi", "EVENTS_PATH", "HEALTH_PATH", "MAX_BODY_BYTES", "HwbotThreadWorker", "serve", "server_options"]

log = logging.getLogger("hwbot.slack.http")

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"
#: Slack payloads are a few KB; a modal submission is the largest. Anything past this is refused.
MAX_BODY_BYTES = 1_000_000

StartResponse = Callable[..., Any]


def _reply(start_response: StartResponse, status: str, body: str, content_type: str = "text/plain; charset=utf-8") -> list[bytes]:
    data = body.encode("utf-8")
    start_response(status, [("Content-Type", content_type), ("Content-Length", str(len(data)))])
    return [data]


def _well_formed(raw: bytes, content_type: str) -> bool:
    """Whether a (signed) body is something Bolt can parse: a JSON object, or a form whose payload is one."""
    try:
        text = raw.decode("utf-8")
        if "application/json" in content_type or text.lstrip().startswith("{"):
            return isinstance(json.loads(text), dict)
        form = parse_qs(text, keep_blank_values=True, strict_parsing=bool(text))
        payload = form.get("payload")
        return payload is None or isinstance(json.loads(payload[0]), dict)
    except (UnicodeDecodeError, ValueError):
        return False


class SlackWsgi:
    """The WSGI application: ``GET /healthz``, and checked ``POST /slack/events`` into Bolt's adapter."""

    def __init__(self, app: Any, signing_secret: str, *, ready: Callable[[], bool] = lambda: True) -> None:
        self.bolt = SlackRequestHandler(app, path=EVENTS_PATH)
        self.verifier = SignatureVerifier(signing_secret)
        self.ready = ready

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        method = environ.get("REQUEST_METHOD", "GET")
        if path == HEALTH_PATH and method in ("GET", "HEAD"):
            return _reply(start_response, "200 OK" if self.ready() else "503 Service Unavailable", "ok" if self.ready() else "starting")
        if path != EVENTS_PATH or method != "POST":
            return _reply(start_response, "404 Not Found", "not found")
        return self._events(environ, start_response)

    def _events(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return _reply(start_response, "400 Bad Request", "bad content-length")
        if length < 0:
            return _reply(start_response, "400 Bad Request", "bad content-length")
        if length > MAX_BODY_BYTES:
            return _reply(start_response, "413 Payload Too Large", "payload too large")
        raw = environ["wsgi.input"].read(length) if length else b""
        stamp = str(environ.get("HTTP_X_SLACK_REQUEST_TIMESTAMP") or "")
        signature = str(environ.get("HTTP_X_SLACK_SIGNATURE") or "")
        if not stamp.isdigit() or not signature or not self.verifier.is_valid(body=raw, timestamp=stamp, signature=signature):
            log.warning("refused a request with a missing, bad or stale signature")
            return _reply(start_response, "401 Unauthorized", '{"error": "invalid request"}', "application/json")
        if not _well_formed(raw, str(environ.get("CONTENT_TYPE") or "")):
            log.warning("refused a signed request whose body is malformed (%d bytes)", len(raw))
            return _reply(start_response, "400 Bad Request", "malformed body")
        environ["wsgi.input"] = io.BytesIO(raw)
        environ["CONTENT_LENGTH"] = str(len(raw))
        try:
            return self.bolt(environ, start_response)
        except Exception as exc:  # Bolt answers errors itself; this is the last line, one log line, no trace
            log.error("dispatching a request failed: %s", type(exc).__name__)
            return _reply(start_response, "500 Internal Server Error", "internal error")


class HwbotThreadWorker(ThreadWorker):
    """gunicorn's threaded worker, but a new connection waits on the poller, not in a pool thread.

    Uses the worker's own pending-connection queue: a connection is handed to a thread
    when it becomes readable, and closed if it stays silent for ``keepalive`` seconds.
    """

    def accept(self, listener: Any) -> None:  # gunicorn's hook name
        try:
            client_sock, client_addr = listener.accept()
        except OSError:
            return  # EAGAIN (another worker took it), ECONNABORTED
        self.nr_conns += 1
        conn = TConn(self.cfg, client_sock, client_addr, listener.getsockname())  # non-blocking until read
        conn.timeout = time.monotonic() + self.cfg.keepalive
        self.pending_conns.append(conn)
        self.poller.register(conn.sock, selectors.EVENT_READ, partial(self.on_pending_socket_readable, conn))


def server_options(host: str, port: int, workers: int) -> dict[str, Any]:
    """gunicorn settings: every timeout and cap chosen, none left to defaults by accident."""
    return {
        "bind": f"{host}:{port}",
        "workers": workers,
        "worker_class": "bot.slack.wsgi.HwbotThreadWorker",
        "threads": 16,  # HTTP threads per worker: acks are quick; answers run on Bolt's own pool
        "worker_connections": 1000,  # cap on open connections per worker (idle ones included)
        "backlog": 2048,
        "keepalive": 5,  # read timeout: a connection silent this long is closed
        "timeout": 120,  # a worker silent this long (stuck, or loading a huge index) is replaced
        "graceful_timeout": 30,  # SIGTERM: time to finish requests and drain in-flight answers
        "limit_request_line": 4094,
        "limit_request_fields": 50,
        "limit_request_field_size": 8190,
        "accesslog": None,
        "errorlog": "-",
        "loglevel": "warning",
        "proc_name": "hwbot-slack",
        "preload_app": False,  # each worker loads the engine itself (no model state shared over fork)
    }


def serve(load: Callable[[], Any], options: dict[str, Any], *, on_ready: Callable[[str], None], on_exit: Callable[[], None]) -> None:
    """Run gunicorn in this process (it becomes the master) until SIGTERM or SIGINT.

    ``load`` runs in each worker after the fork and returns the WSGI app; ``on_ready``
    gets the bound address once the master listens; ``on_exit`` runs in each worker as
    it stops (the drain).
    """
    from gunicorn.app.base import BaseApplication

    class Application(BaseApplication):
        def load_config(self) -> None:
            for key, value in options.items():
                self.cfg.set(key, value)
            self.cfg.set("when_ready", lambda server: on_ready(_bound(server)))
            self.cfg.set("worker_exit", lambda server, worker: on_exit())

        def load(self) -> Any:
            return load()

    Application().run()


def _bound(server: Any) -> str:
    try:
        host, port = server.LISTENERS[0].sock.getsockname()[:2]
        return f"{host}:{port}"
    except (AttributeError, IndexError, OSError):
        return str(server.cfg.bind[0])

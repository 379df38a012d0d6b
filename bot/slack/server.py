"""HTTP mode in production: gunicorn's master, and its own asyncio ASGI worker.

Why this front (measured, see docs/slack.md "The server"): with gunicorn's threaded
worker, a request being read holds a thread, so 32 connections trickling headers (or
40 trickling a body) from one client held all 2 x 16 threads and signed events timed
out. Deadlines would only shorten each hold: a client that reconnects keeps the threads
busy. On an event loop a slow client holds no thread at all. gunicorn 27 ships an asyncio
ASGI worker (``gunicorn.workers.gasgi``), so we keep gunicorn's master (``--workers N``
forked after the bind, a dead worker replaced, graceful ``SIGTERM``) and add no
dependency. Bolt's synchronous dispatch runs on a thread pool (:mod:`bot.slack.front`).

What this module adds to that worker:

- :class:`HwbotProtocol`: a connection must finish its request line and headers within
  ``HEADER_DEADLINE`` seconds of connecting, or it is closed (slowloris; gunicorn's own
  keep-alive timer covers later requests on the connection); and a worker holding
  ``worker_connections`` connections closes its oldest *idle* one (no request being
  read or served) for each new one, so a flood of idle connections cannot lock out a
  real request; when none is idle, the new one is closed instead.
- :class:`HwbotAsgiWorker`: the worker that serves with it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from gunicorn.asgi.protocol import ASGIProtocol
from gunicorn.workers import gasgi

__all__ = ["HwbotProtocol", "HwbotAsgiWorker", "server_options", "serve", "HEADER_DEADLINE", "MAX_CONNECTIONS"]

#: Seconds from connect to the end of the request headers.
HEADER_DEADLINE = 5.0
#: Open connections per worker (idle ones included); more are closed on arrival.
MAX_CONNECTIONS = 1000


class HwbotProtocol(ASGIProtocol):
    """gunicorn's HTTP/1 protocol with a header deadline and a hard connection cap."""

    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        live: dict[HwbotProtocol, None] = self.worker.__dict__.setdefault("hwbot_connections", {})
        if self.worker.nr_conns > int(getattr(self.cfg, "worker_connections", MAX_CONNECTIONS)):
            self._evict_idle(live)
        live[self] = None  # insertion order: oldest first
        self._header_timer = self.worker.loop.call_later(HEADER_DEADLINE, self._headers_too_slow)

    def _idle(self) -> bool:
        """Waiting for a request head: nothing of a request is being served on this connection."""
        return not self._closed and (self._awaiting_request or (self.req_count <= 1 and self._current_request is None))

    def _evict_idle(self, live: "dict[HwbotProtocol, None]") -> None:
        """At the cap, close the oldest idle connection, so a flood of idle ones cannot lock out a real request."""
        victim = next((conn for conn in live if conn._idle()), None)
        if victim is None:
            self._close_transport()  # every connection is busy: refuse this one
            return
        victim._close_transport()
        if victim._request_ready is not None:
            victim._request_ready.set()

    def _headers_too_slow(self) -> None:
        """Close a connection that has not sent one whole request head in time."""
        if self.req_count <= 1 and self._current_request is None and not self._closed:
            self._close_transport()
            if self._request_ready is not None:
                self._request_ready.set()  # let the connection's task see it closed

    def connection_lost(self, exc: Exception | None) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
        self.worker.__dict__.get("hwbot_connections", {}).pop(self, None)
        super().connection_lost(exc)


class HwbotAsgiWorker(gasgi.ASGIWorker):
    """gunicorn's asyncio ASGI worker, serving connections with :class:`HwbotProtocol`."""

    def run(self) -> None:
        # gasgi builds its protocol by this module-level name when it creates the server.
        gasgi.ASGIProtocol = HwbotProtocol
        super().run()


def server_options(host: str, port: int, workers: int) -> dict[str, Any]:
    """gunicorn settings: every timeout and cap chosen, none left to defaults by accident."""
    return {
        "bind": f"{host}:{port}",
        "workers": workers,
        "worker_class": "bot.slack.server.HwbotAsgiWorker",
        "worker_connections": MAX_CONNECTIONS,
        "backlog": 2048,
        "keepalive": 5,  # an idle keep-alive connection is closed after this long
        "timeout": 120,  # a worker silent this long (stuck, or loading a huge index) is replaced
        "graceful_timeout": 30,  # SIGTERM: time to finish requests and drain in-flight answers
        "limit_request_line": 4094,
        "limit_request_fields": 50,
        "limit_request_field_size": 8190,
        "asgi_lifespan": "off",  # start-up runs when the app loads; the drain runs in worker_exit
        "asgi_loop": "asyncio",
        "accesslog": None,
        "errorlog": "-",
        "loglevel": "warning",
        "proc_name": "hwbot-slack",
        "preload_app": False,  # each worker loads the engine itself (no model state shared over fork)
    }


def serve(load: Callable[[], Any], options: dict[str, Any], *, on_ready: Callable[[str], None], on_exit: Callable[[], None]) -> None:
    """Run gunicorn in this process (it becomes the master) until SIGTERM or SIGINT.

    ``load`` runs in each worker after the fork and returns the ASGI app; ``on_ready``
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

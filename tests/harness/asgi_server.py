"""Serve the production ASGI front on an ephemeral loopback port inside the test process.

The in-process Slack tests need the app in the same process as the test (to hold work
at a gate, or wait for listener threads). They serve it with the production connection
handling, :class:`bot.slack.server.HwbotProtocol` (gunicorn's asyncio HTTP/1 protocol
with hwbot's header deadline), on an event loop in a thread, configured from the same
:func:`~bot.slack.server.server_options` as ``hwbot slack --http``. Only the gunicorn
master and its forking are left out; ``tests/slack/test_workers.py`` starts those real
worker processes.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from gunicorn.config import Config
from gunicorn.glogging import Logger

from bot.slack.server import HwbotProtocol, server_options

__all__ = ["LoopbackAsgiServer"]


class _Worker:
    """What gunicorn's protocol reads from its worker: config, log, loop, app and counters."""

    def __init__(self, app: Any, loop: asyncio.AbstractEventLoop) -> None:
        self.cfg = Config()
        for key, value in server_options("127.0.0.1", 0, 1).items():
            if key in self.cfg.settings:
                self.cfg.set(key, value)
        self.log = Logger(self.cfg)
        self.asgi = app
        self.loop = loop
        self.alive = True
        self.nr = 0
        self.nr_conns = 0
        self.max_requests = 2**62
        self.state: dict[str, Any] = {}


class LoopbackAsgiServer:
    def __init__(self, app: Any) -> None:
        self.app = app
        self._loop = asyncio.new_event_loop()
        self._worker = _Worker(app, self._loop)
        self._server: asyncio.AbstractServer | None = None
        self._thread = threading.Thread(target=self._loop.run_forever, name="asgi-loopback", daemon=True)
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/slack/events"

    def start(self) -> "LoopbackAsgiServer":
        self._thread.start()
        future = asyncio.run_coroutine_threadsafe(
            self._loop.create_server(lambda: HwbotProtocol(self._worker), "127.0.0.1", 0, backlog=2048), self._loop)
        self._server = future.result(10)
        self.port = int(self._server.sockets[0].getsockname()[1])
        return self

    def shutdown(self) -> None:
        if self._server is not None:
            # asyncio servers are not thread-safe: close it on its own loop, not from the test's thread
            asyncio.run_coroutine_threadsafe(_close(self._server), self._loop).result(5)
            self._server = None
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        close = getattr(self.app, "close", None)
        if callable(close):
            close()


async def _close(server: asyncio.AbstractServer) -> None:
    server.close()

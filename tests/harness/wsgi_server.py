"""Serve a WSGI app on an ephemeral loopback port inside the test process.

The in-process Slack tests need the app in the same process as the test (to hold work
at a gate, or wait for listener threads), so they serve the production WSGI app
(:class:`bot.slack.wsgi.SlackWsgi`) with the standard library's reference server on
threads. Production runs the same app under gunicorn; the end-to-end tests in
``tests/slack/test_workers.py`` start those real worker processes.
"""

from __future__ import annotations

import threading
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

__all__ = ["LoopbackWsgiServer"]


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        return


class _ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True
    request_queue_size = 256


class LoopbackWsgiServer:
    def __init__(self, app: Any) -> None:
        self._server = make_server("127.0.0.1", 0, app, server_class=_ThreadingServer, handler_class=_Quiet)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/slack/events"

    def start(self) -> "LoopbackWsgiServer":
        self._thread.start()
        return self

    def shutdown(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

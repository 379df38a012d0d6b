"""Running the real ``hwbot`` console script in a subprocess, for end-to-end CLI tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HWBOT = Path(sys.executable).with_name("hwbot")


def run(args: list[str], env: dict[str, str], *, stdin: str | bytes | None = None, timeout: float = 240) -> subprocess.CompletedProcess:
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    proc = subprocess.run(
        [str(HWBOT), *args], input=data, env=env, capture_output=True, timeout=timeout,
    )
    proc.stdout_text = proc.stdout.decode("utf-8", errors="replace")  # type: ignore[attr-defined]
    proc.stderr_text = proc.stderr.decode("utf-8", errors="replace")  # type: ignore[attr-defined]
    return proc


def assert_one_line_error(proc: subprocess.CompletedProcess, code: int, *fragments: str) -> str:
    err = proc.stderr_text.strip()  # type: ignore[attr-defined]
    assert proc.returncode == code, (proc.returncode, err)
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]

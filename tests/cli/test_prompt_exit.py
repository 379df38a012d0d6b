"""The console script's prompt exit (bot.cli.run): output and exit handlers first, waiting work respected.

``run`` ends a one-shot command with ``os._exit`` to skip the interpreter's teardown; these
check what that must never skip: buffered output, ``atexit`` handlers, a non-daemon thread still
working, the exit code, and a profiler's report.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = """
import atexit, sys, threading, time
from pathlib import Path
out = Path(sys.argv[1])
atexit.register(lambda: (out / "atexit").write_text("ran"))
if sys.argv[2] == "thread":
    def late():
        time.sleep(0.3)
        (out / "thread").write_text("done")
    threading.Thread(target=late).start()
sys.stdout.write("buffered, no newline")
sys.argv = ["hwbot", *sys.argv[3:]]
from bot.cli import run
run()
"""


def _run(tmp_path: Path, mode: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path), mode, *args],
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


def test_output_and_exit_handlers_survive_the_prompt_exit(tmp_path: Path) -> None:
    proc = _run(tmp_path, "plain", "--version")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("buffered, no newline") and "hwbot" in proc.stdout
    assert (tmp_path / "atexit").read_text() == "ran"


def test_a_working_thread_is_waited_for(tmp_path: Path) -> None:
    proc = _run(tmp_path, "thread", "--version")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "thread").read_text() == "done"


def test_the_exit_code_of_an_error_is_kept(tmp_path: Path) -> None:
    proc = _run(tmp_path, "plain", "ask", "")  # an empty question fails before anything loads
    assert proc.returncode == 2 and proc.stderr.startswith("Error: the question is empty"), proc.stderr
    assert proc.stderr.count("\n") == 1
    assert (tmp_path / "atexit").read_text() == "ran"


def test_a_profiler_still_writes_its_report(tmp_path: Path) -> None:
    report = tmp_path / "profile.out"
    proc = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(report), "-m", "bot", "--version"],
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    assert report.stat().st_size > 0

"""Commands that never embed never import torch: ``--help``, ``recommend`` and error paths.

Importing torch and sentence-transformers costs seconds of cold start, so the CLI
imports them only when a question is actually embedded. Each case runs the real CLI
entry point in a fresh interpreter through a wrapper that, at exit, prints which heavy
modules ended up in ``sys.modules``; the case also checks the command did what it
should (exit code and output), so a command that crashed early cannot pass by accident.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.harness.profiles import TPU_FRIENDLY

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "sentence_transformers", "transformers")
MARK = "HWBOT-HEAVY-MODULES="

#: Runs ``bot.cli.main`` with the given argv; at exit, reports the heavy modules loaded.
WRAPPER = f"""
import atexit, json, sys
def _report():
    loaded = sorted(m for m in {HEAVY!r} if m in sys.modules)
    sys.stderr.write("\\n{MARK}" + json.dumps(loaded) + "\\n")
atexit.register(_report)
from bot.cli import main
main(sys.argv[1:])
"""

PROFILE = TPU_FRIENDLY


def run_cli(args: list[str], tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLACK_")}
    env["HF_HUB_OFFLINE"] = "1"
    # An index dir that does not exist: a command that tried to answer would have to build it.
    env["HWBOT_INDEX_DIR"] = str(tmp_path / "no-index-here")
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    proc = subprocess.run(
        [sys.executable, "-c", WRAPPER, *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    lines = [line for line in proc.stderr.splitlines() if line.startswith(MARK)]
    assert lines, f"the wrapper did not report (exit {proc.returncode}): {proc.stderr[-500:]}"
    return proc, json.loads(lines[-1][len(MARK) :])


def user_stderr(proc: subprocess.CompletedProcess[str]) -> str:
    return "\n".join(line for line in proc.stderr.splitlines() if not line.startswith(MARK)).strip()


@pytest.mark.parametrize(
    "args",
    [["--help"], ["--version"], ["ask", "--help"], ["index", "--help"], ["recommend", "--help"], ["repl", "--help"], ["faq", "--help"], ["slack", "--help"]],
    ids=lambda a: " ".join(a),
)
def test_help_and_version_never_import_torch(args: list[str], tmp_path: Path) -> None:
    proc, heavy = run_cli(args, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip(), "help printed nothing"
    assert heavy == []


def test_recommend_with_a_profile_never_imports_torch(tmp_path: Path) -> None:
    profile = tmp_path / "profile.json"
    profile.write_text(json.dumps(PROFILE), encoding="utf-8")
    proc, heavy = run_cli(["recommend", "--profile", str(profile), "--json"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["recommendation"] in ("gpu", "tpu", "gpu_then_tpu")
    assert heavy == []


def test_recommend_text_view_never_imports_torch(tmp_path: Path) -> None:
    profile = tmp_path / "profile.json"
    profile.write_text(json.dumps(PROFILE), encoding="utf-8")
    proc, heavy = run_cli(["recommend", "--profile", str(profile)], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip()
    assert heavy == []


def test_bad_profile_never_imports_torch(tmp_path: Path) -> None:
    profile = tmp_path / "bad.json"
    profile.write_text(json.dumps({"stage": "someday"}), encoding="utf-8")
    proc, heavy = run_cli(["recommend", "--profile", str(profile), "--json"], tmp_path)
    assert proc.returncode == 2
    err = user_stderr(proc)
    assert "stage" in err and len(err.splitlines()) == 1 and "Traceback" not in proc.stderr
    assert heavy == []


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["ask", ""], "empty"),
        (["ask", "   \t  "], "empty"),
        (["ask"], "missing"),
        (["ask", "--batch", "missing.txt", "--json"], "no such file"),
        (["ask", "--batch", "missing.txt"], "--json"),
        (["ask", "why?", "--batch", "missing.txt", "--json"], "either"),
        (["recommend", "--profile", "missing.json", "--json"], "missing.json"),
        (["faq", "missing.md"], "missing.md"),
        (["no-such-command"], "no-such-command"),
        (["slack", "--http"], "SLACK_BOT_TOKEN"),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else None,
)
def test_error_paths_never_import_torch(args: list[str], fragment: str, tmp_path: Path) -> None:
    proc, heavy = run_cli(args, tmp_path)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    err = user_stderr(proc)
    assert fragment.lower() in err.lower(), err
    assert "Traceback" not in proc.stderr
    assert heavy == []


def test_empty_batch_file_never_imports_torch(tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_text("\n  \n", encoding="utf-8")
    proc, heavy = run_cli(["ask", "--batch", "empty.txt", "--json"], tmp_path)
    assert proc.returncode == 2
    assert "empty" in user_stderr(proc).lower()
    assert heavy == []


def test_the_wrapper_does_see_torch_when_a_question_is_answered(tmp_path: Path, built_index: Path) -> None:
    """The probe itself works: answering a real question does load torch."""
    env_index = built_index
    proc = subprocess.run(
        [sys.executable, "-c", WRAPPER, "ask", "Why are GPUs the default accelerator?", "--json"],
        cwd=tmp_path,
        env=dict(os.environ, HF_HUB_OFFLINE="1", HWBOT_INDEX_DIR=str(env_index)),
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr[-500:]
    assert "citations" in json.loads(proc.stdout)
    heavy = json.loads([line for line in proc.stderr.splitlines() if line.startswith(MARK)][-1][len(MARK) :])
    assert "torch" in heavy

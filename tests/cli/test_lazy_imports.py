"""No command imports torch: ``--help``, ``recommend`` and error paths never embed, and the
query path (ask, repl, faq, eval, the Slack worker) embeds with onnxruntime + tokenizers.

Importing torch and sentence-transformers costs seconds of cold start and hundreds of
MB, so only builds (and the noted fallback) import them. Each case runs the real CLI
entry point in a fresh interpreter through a wrapper that, at exit, prints which heavy
modules ended up in ``sys.modules``; the case also checks the command did what it
should (exit code and output), so a command that crashed early cannot pass by accident.
"""

from __future__ import annotations

import json
import os
import re
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


def run_answering(args: list[str], index_dir: Path, tmp_path: Path, *, stdin: str | None = None,
                  script: str = WRAPPER) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """Like :func:`run_cli`, but against a real built index, so the command really answers."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLACK_")}
    env.update(HF_HUB_OFFLINE="1", HWBOT_INDEX_DIR=str(index_dir), HWBOT_STATE_DIR=str(tmp_path / "state"),
               XDG_STATE_HOME=str(tmp_path / "xdg"))
    proc = subprocess.run(
        [sys.executable, "-c", script, *args], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=300, input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL,
    )
    lines = [line for line in proc.stderr.splitlines() if line.startswith(MARK)]
    assert lines, f"the wrapper did not report (exit {proc.returncode}): {proc.stderr[-500:]}"
    return proc, json.loads(lines[-1][len(MARK) :])


def test_ask_answers_on_onnx_without_torch(tmp_path: Path, built_index: Path) -> None:
    proc, heavy = run_answering(["ask", "Why are GPUs the default accelerator?", "--json"], built_index, tmp_path)
    assert proc.returncode == 0, proc.stderr[-500:]
    assert json.loads(proc.stdout)["citations"]
    assert user_stderr(proc) == ""  # no fallback notice: the ONNX encoder was used
    assert heavy == []


def test_ask_batch_answers_on_onnx_without_torch(tmp_path: Path, built_index: Path) -> None:
    (tmp_path / "qs.txt").write_text("What is a TPU?\nHow do I cook pasta?\n", encoding="utf-8")
    proc, heavy = run_answering(["ask", "--batch", "qs.txt", "--json"], built_index, tmp_path)
    assert proc.returncode == 0, proc.stderr[-500:]
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [a["declined"] for a in answers] == [False, True]
    assert heavy == []


def test_piped_repl_answers_without_torch(tmp_path: Path, built_index: Path) -> None:
    proc, heavy = run_answering(["repl"], built_index, tmp_path, stdin="Why would a TPU sit idle?\n/quit\n")
    assert proc.returncode == 0, proc.stderr[-500:]
    assert "Sources:" in proc.stdout
    assert heavy == []


def test_faq_answers_without_torch(tmp_path: Path, built_index: Path) -> None:
    (tmp_path / "docs.md").write_text("# FAQ\n\n## When is a TPU a better choice than a GPU?\n\n"
                                      "## How do I cook pasta?\n", encoding="utf-8")
    proc, heavy = run_answering(["faq", "docs.md", "--json"], built_index, tmp_path)
    assert proc.returncode == 0, proc.stderr[-500:]
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(answers) == 2 and answers[0]["citations"] and answers[1]["declined"]
    assert heavy == []


@pytest.mark.slow  # the dev set in a process
def test_eval_runs_without_torch(tmp_path: Path, built_index: Path) -> None:
    proc, heavy = run_answering(["eval", "--json"], built_index, tmp_path)
    assert proc.returncode == 0, proc.stderr[-500:]
    report = json.loads(proc.stdout)
    assert [r["mode"] for r in report["retrieval"]] == ["hybrid", "dense", "bm25"]
    assert report["test"]["in_correct_cited"]["n"] > 0 and report["tune"]["in_correct_cited"]["n"] > 0
    assert heavy == []


#: The Slack worker's start-up short of serving: settings, the engine opened (index and
#: encoder loaded, as ``hwbot slack`` does before it serves), the Bolt app built; then one answer.
SLACK_STARTUP = f"""
import atexit, json, sys
def _report():
    loaded = sorted(m for m in {HEAVY!r} if m in sys.modules)
    sys.stderr.write("\\n{MARK}" + json.dumps(loaded) + "\\n")
atexit.register(_report)
from pathlib import Path
from bot.slack.app import build_app
from bot.slack.feedback import FeedbackStore
from bot.slack.runtime import EngineAnswers, SlackRuntime
from common.slack_settings import SlackSettings
from bot.state import SqliteStateStore
settings = SlackSettings(SLACK_BOT_TOKEN="xoxb-0-0-startup", SLACK_SIGNING_SECRET="0" * 32, SLACK_APP_TOKEN="",
                         HWBOT_SLACK_API_URL="http://127.0.0.1:9/api/")
from common.settings import HwbotSettings
core = EngineAnswers.open(HwbotSettings())
state = SqliteStateStore(Path(sys.argv[1]).with_name("state.sqlite3"))
app = build_app(SlackRuntime(settings=settings, engine=core, state=state, feedback=FeedbackStore(Path(sys.argv[1]))))
print(type(app).__name__, core.ask("Why are GPUs the default accelerator?").answer.citations[0].label)
"""


def test_slack_worker_startup_never_imports_torch(tmp_path: Path, built_index: Path) -> None:
    proc, heavy = run_answering([str(tmp_path / "feedback.sqlite3")], built_index, tmp_path, script=SLACK_STARTUP)
    assert proc.returncode == 0, proc.stderr[-800:]
    assert re.match(r"App \[file_gpu\d{3}:c\d{4}\] ", proc.stdout), proc.stdout
    assert heavy == []


#: What a plain question's cold path must not load: scipy (bm25s offers it, its numpy backend
#: scores), YAML (front matter is parsed only when a source is read), the recommendation models
#: and the learned extractor (a second ONNX session) when nothing about a team can matter; nor
#: tqdm (bm25s's progress bars, never shown) or numpy.ma (numpy's median checks NaN through it).
COLD_EXTRAS = ("scipy", "yaml", "tqdm", "numpy.ma", "knowledge.recommend.profile", "knowledge.recommend.learned.combine")
COLD_WRAPPER = WRAPPER.replace(repr(HEAVY), repr(HEAVY + COLD_EXTRAS))


def test_a_plain_question_loads_neither_scipy_nor_the_recommendation_path(tmp_path: Path, built_index: Path) -> None:
    proc, loaded = run_answering(["ask", "Why would a TPU sit idle while training?", "--json"], built_index, tmp_path,
                                 script=COLD_WRAPPER)
    assert proc.returncode == 0, proc.stderr[-500:]
    assert json.loads(proc.stdout)["citations"]
    assert loaded == []


def test_a_team_choice_still_reads_the_team_with_the_learned_extractor(tmp_path: Path, built_index: Path) -> None:
    proc, loaded = run_answering(["ask", "we're a PyTorch team on AWS with 8 GPUs and the model changes every week: "
                                  "GPU or TPU?", "--json"], built_index, tmp_path, script=COLD_WRAPPER)
    assert proc.returncode == 0, proc.stderr[-500:]
    out = json.loads(proc.stdout)
    assert out["recommendation"]["recommendation"] in ("gpu", "tpu", "gpu_then_tpu")
    assert "knowledge.recommend.learned.combine" in loaded and "torch" not in loaded


#: Records which modules were loaded when the first thread (the ONNX prefetch) started.
PREFETCH_WRAPPER = f"""
import json, sys, threading
_start = threading.Thread.start
def _watch(self):
    if self.name == "hwbot-onnx-prefetch":
        sys.stderr.write("\\n{MARK}" + json.dumps(sorted(m for m in ("onnxruntime", "tokenizers", "bm25s", "knowledge.qa.service", "indexer.query_encoder", "pydantic_settings") if m in sys.modules)) + "\\n")
    return _start(self)
threading.Thread.start = _watch
from bot.cli import main
main(sys.argv[1:])
"""


def test_the_onnx_session_starts_loading_before_the_answerer_is_imported(tmp_path: Path, built_index: Path) -> None:
    """A cold ask builds its ONNX session (~0.2 s) in the background while the rest imports: it must
    start before the settings are built (pydantic-settings) and before the answerer's modules load.
    onnxruntime (so numpy) is imported first, in the main thread: numpy imported by two threads
    at once can fail half-initialized."""
    proc, loaded = run_answering(["ask", "What does TPU stand for?", "--json"], built_index, tmp_path, script=PREFETCH_WRAPPER)
    assert proc.returncode == 0, proc.stderr[-500:]
    assert json.loads(proc.stdout)["citations"]
    assert loaded == ["onnxruntime"]


def test_help_for_ask_starts_no_onnx_session(tmp_path: Path, built_index: Path) -> None:
    """``hwbot ask`` starts loading its ONNX session before click parses the command; ``ask --help``
    must not (it would wait ~0.2 s for a session nobody takes)."""
    script = WRAPPER.replace(repr(HEAVY), repr((*HEAVY, "onnxruntime")))
    proc, loaded = run_answering(["ask", "--help"], built_index, tmp_path, script=script)
    assert proc.returncode == 0 and "QUESTION" in proc.stdout, proc.stderr[-500:]
    assert loaded == []

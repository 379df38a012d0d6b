"""``hwbot recommend``: the real console script in a subprocess.

Bad profiles exit 2 with one line naming the field and the allowed values, never a
traceback; ``--json`` is exactly the contract; the text shows reasons with citation
labels, caveats and flips; piped stdin runs the intake; torch is never imported.
The environment is ``os.environ`` plus a private state dir: no index is needed here.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.intake.persistence import DB_NAME, IntakeStore
from bot.intake.session import run_intake_session
from bot.plaintext import render_recommendation_text

REPO = Path(__file__).resolve().parents[2]
HWBOT = REPO / ".venv" / "bin" / "hwbot"
LABEL = re.compile(r"^\[file_gpu\d{3}:c\d{4}\] [\w.]+ p\d+-\d+$")
PROFILE = {
    "stage": "exploration", "architecture_changes": "often", "custom_kernels": "none",
    "framework": "PyTorch", "team_expertise": "cuda", "cloud": "google_cloud", "workload": "training",
    "scale": "massive", "priority": "cost_at_scale", "optimization_time": "weeks",
}


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "HWBOT_STATE_DIR": str(tmp_path / "state"), "HF_HUB_OFFLINE": "1"}


def hwbot(env: dict[str, str], *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(HWBOT), *args], input=stdin, capture_output=True, text=True, env=env, timeout=120)


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return path


def test_json_output_is_exactly_the_contract(tmp_path: Path, env: dict[str, str]) -> None:
    proc = hwbot(env, "recommend", "--profile", str(write(tmp_path, "p.json", json.dumps(PROFILE))), "--json")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    data = json.loads(proc.stdout)
    # The contract's keys in order, then the documented extensions.
    assert list(data) == ["recommendation", "confidence", "scores", "reasons", "caveats", "flips",
                          "fit", "blockers", "todo", "next_questions"]
    assert data["recommendation"] == "gpu_then_tpu"
    # Only data_pipeline is unknown and no answer to it changes the verdict: certain.
    assert data["confidence"] == 1.0 and data["next_questions"] == []
    assert data["fit"] == "high" and data["todo"] and data["blockers"]
    assert set(data["scores"]) == {"gpu", "tpu", "gpu_then_tpu"}
    assert all(isinstance(v, float) for v in data["scores"].values())
    assert data["reasons"] and all(set(r) == {"factor", "effect", "citations", "direction"} for r in data["reasons"])
    assert all(LABEL.match(label) for r in data["reasons"] for label in r["citations"])
    assert all(isinstance(c, str) for c in data["caveats"]) and data["caveats"]
    assert data["flips"] and all(set(f) == {"field", "value", "recommendation"} for f in data["flips"])
    assert {"field": "custom_kernels", "value": "critical", "recommendation": "gpu"} in data["flips"]


def test_text_output_shows_reasons_caveats_and_flips(tmp_path: Path, env: dict[str, str]) -> None:
    proc = hwbot(env, "recommend", "--profile", str(write(tmp_path, "p.json", json.dumps(PROFILE))))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.startswith("Recommendation: GPU now, TPU later")
    assert "Confidence: 1.00" in out
    assert "Why GPU now, TPU later:" in out and "[file_gpu001:c0001] gpu_tpu_lesson_notes.md p1-1" in out
    # reasons in words: what each answer does, never fit points or rule ids
    assert "fit +" not in out and "blocker:" not in out and "[readiness" not in out
    assert "to resolve before a TPU (until stable)" in out and "a strong pull toward a TPU" in out
    assert "What argues against it:" in out and "no blocker, but easier on GPUs" in out
    assert "To do before moving to TPUs:" in out
    assert "Caveats:" in out and "TPU means Google Cloud only" in out
    assert "What would change this:" in out and "custom kernels: critical → GPU" in out


@pytest.mark.parametrize(
    ("content", "must_contain"),
    [
        ("{not json", ["invalid JSON at line 1"]),
        (json.dumps({"stage": "prod-ish"}), ["stage: 'prod-ish' is not allowed", "exploration, stabilizing, production, unknown"]),
        (json.dumps({"cloud": "azure"}), ["cloud: 'azure'", "google_cloud, other_single_cloud, multi_cloud, on_prem, unknown"]),
        (json.dumps({"gpu_count": "8"}), ["gpu_count: unknown field", "known fields: architecture_changes, cloud"]),
        (json.dumps({"scale": 8}), ["scale: 8 is not allowed", "single_device, multi_device, massive, unknown"]),
        (
            json.dumps({"stage": "sometime-soon", "scale": 7, "bogus": 1}),
            ["stage: 'sometime-soon' is not allowed", "scale: 7 is not allowed", "bogus: unknown field"],
        ),
        (json.dumps(["stage", "production"]), ["expected a JSON object"]),
        ("", ["empty file"]),
        (b"\xff\xfe\x00bad", ["looks binary"]),
        ("{\"stage\": \"caf\xe9\"}".encode("latin-1"), ["not UTF-8", "line 1"]),
    ],
    ids=["invalid-json", "wrong-value", "wrong-cloud", "unknown-field", "not-a-string", "three-wrong-fields", "not-an-object", "empty", "binary", "latin-1"],
)
def test_bad_profile_exits_2_with_one_line(tmp_path: Path, env: dict[str, str], content: str | bytes, must_contain: list[str]) -> None:
    path = write(tmp_path, "bad.json", content)
    proc = hwbot(env, "recommend", "--profile", str(path), "--json")
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    for needle in must_contain:
        assert needle in lines[0]


def test_bad_profile_in_text_mode_is_the_same_one_line(tmp_path: Path, env: dict[str, str]) -> None:
    proc = hwbot(env, "recommend", "--profile", str(write(tmp_path, "bad.json", '{"workload": "gaming"}')))
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [
        f"Error: {tmp_path / 'bad.json'}: workload: 'gaming' is not allowed "
        "(allowed: training, inference, both, unknown) (Try 'hwbot recommend --help')"
    ]


def test_missing_profile_file_exits_2(tmp_path: Path, env: dict[str, str]) -> None:
    proc = hwbot(env, "recommend", "--profile", str(tmp_path / "nope.json"))
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()] and "no such file" in proc.stderr
    proc = hwbot(env, "recommend", "--profile", str(tmp_path))
    assert proc.returncode == 2 and "is a directory" in proc.stderr and "Traceback" not in proc.stderr


def test_piped_intake_prints_json_on_stdout_and_the_dialog_on_stderr(env: dict[str, str]) -> None:
    # The gate first, then the engine's choice; free text is read; the verdict settles
    # after 7 answers and "no" declines the 3 questions that could not change it.
    answers = "1\nwe train on 512 GPUs\ntorch?\nnone\nweekly\nweeks\noften\ncost\nno\n"
    proc = hwbot(env, "recommend", "--json", stdin=answers)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["recommendation"] == "gpu_then_tpu" and data["confidence"] == 1.0
    asked = [line.split(": ", 1)[1] for line in proc.stderr.splitlines() if line.startswith("Question ")]
    assert asked == [
        "Where must the work run?",
        "How big are the jobs?",
        "Which framework does the team use?",
        "Does the work rely on custom CUDA kernels or non-standard operations?",
        "How much engineering time can the team spend learning and tuning a compiler stack (XLA)?",
        "How often does the model architecture change?",
        "What matters more: flexibility or cost at scale?",
    ]
    assert "Question 1 (at most 11): " in proc.stderr and "/11" not in proc.stderr
    assert "understood: 512 GPUs -> Massive (hundreds of chips, pods, weeks-long runs)" in proc.stderr
    assert 'also noted: workload = Training ("train")' in proc.stderr
    assert "Question 3 (at most 10): " in proc.stderr  # workload is known now
    assert "understood: torch -> PyTorch" in proc.stderr
    assert "Sorry, I did not understand 'weekly'." in proc.stderr
    assert "Your answers already settle it: GPU now, TPU later. 3 questions skipped; answer them anyway? (yes/no)" in proc.stderr
    assert "Done after 7 questions." in proc.stderr
    # A one-shot piped dialog leaves no state behind.
    assert IntakeStore(Path(env["HWBOT_STATE_DIR"]) / DB_NAME).keys() == []


def test_piped_intake_text_mode_and_early_end(env: dict[str, str]) -> None:
    # Skipping everything leaves every question able to matter: all 11 are asked.
    proc = hwbot(env, "recommend", stdin="skip\n" * 11)
    assert proc.returncode == 0, proc.stderr
    assert "Question 1 (at most 11)" in proc.stdout and "Question 11 (the last one)" in proc.stdout
    assert "Recommendation: GPU [gpu]" in proc.stdout
    # Multi-cloud settles it at once; the rest is declined.
    settled = hwbot(env, "recommend", stdin="multi cloud\nno\n")
    assert settled.returncode == 0, settled.stderr
    assert "Your answers already settle it: GPU. 10 questions skipped" in settled.stdout
    assert "Question 2" not in settled.stdout and "Recommendation: GPU [gpu]" in settled.stdout
    short = hwbot(env, "recommend", stdin="1\n2\n")
    assert short.returncode == 2
    assert short.stderr.strip().splitlines() == [
        "Error: input ended after 2 intake answers, before the intake finished (it asks at most 11); "
        "give one answer per line, or use --profile FILE (Try 'hwbot recommend --help')"
    ]
    cancelled = hwbot(env, "recommend", stdin="1\ncancel\n")
    assert cancelled.returncode == 1 and "Intake cancelled." in cancelled.stdout


def test_torch_is_never_imported_by_recommend(tmp_path: Path, env: dict[str, str]) -> None:
    profile = write(tmp_path, "p.json", json.dumps(PROFILE))
    script = (
        "import sys\n"
        "from bot.cli import main\n"
        "try:\n"
        f"    main(['recommend', '--profile', {str(profile)!r}, '--json'])\n"
        "except SystemExit as exc:\n"
        "    assert not exc.code, exc.code\n"
        "heavy = sorted(m for m in ('torch', 'sentence_transformers', 'transformers', 'faiss') if m in sys.modules)\n"
        "print('HEAVY=' + ','.join(heavy), file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["recommendation"] == "gpu_then_tpu"
    assert proc.stderr.strip().endswith("HEAVY="), proc.stderr


def test_scoring_engine_alone_never_imports_torch(env: dict[str, str]) -> None:
    script = (
        "import sys\n"
        "from knowledge.recommend.profile import parse_profile\n"
        "from knowledge.recommend.recommender import recommend\n"
        "rec = recommend(parse_profile({'stage': 'production', 'scale': 'massive'}))\n"
        "assert rec.reasons\n"
        "print('torch' in sys.modules, 'faiss' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "False"]


def test_run_intake_session_is_reusable_by_other_front_ends(tmp_path: Path) -> None:
    """What the REPL's /recommend does: its own reader and writer, its own key."""
    store = IntakeStore(tmp_path / DB_NAME)
    lines = iter(["gcp", "massive", "none", "jax", "rarely", "weeks", "yes", "production", "no"])
    seen: list[str] = []
    rec = run_intake_session(lambda prompt: next(lines, None), seen.append, key="repl:1", store=store)
    assert rec is not None and rec.recommendation == "tpu" and rec.confidence == 1.0
    assert seen[0].startswith("At most 11 short questions") and seen[-1].startswith("Done after 8 questions. Your answers:")
    assert "not asked: team_expertise, workload, priority" in seen[-1]
    assert render_recommendation_text(rec).startswith("Recommendation: TPU [tpu]")
    assert store.keys() == []
    # Cancel returns None and clears the dialog.
    cancel = iter(["1", "cancel"])
    assert run_intake_session(lambda p: next(cancel, None), seen.append, key="repl:2", store=store) is None
    assert store.keys() == []
    # End of input pauses (kept for resume), and a later session resumes it.
    first = iter(["1", "2"])
    assert run_intake_session(lambda p: next(first, None), seen.append, key="repl:3", store=store) is None
    paused = store.load("repl:3")
    assert paused is not None and paused.asked == ["cloud", "scale"]
    rest = iter(["skip"] * 9)
    out: list[str] = []
    rec = run_intake_session(lambda p: next(rest, None), out.append, key="repl:3", store=store)
    assert rec is not None and out[0] == "Resuming your intake: 2 answered so far ('restart' to start over)."
    assert out[1].startswith("Question 3 (at most 11): ")

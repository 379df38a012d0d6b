"""Intake state in SQLite: a dialog survives a process restart, concurrent dialogs never
mix (100 threads on 100 keys) nor lose answers when racing on one key, and corrupt or
impossible rows restart the dialog instead of crashing it."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from bot.intake.dialog import IntakeState, advance, start
from bot.intake.persistence import DB_NAME, IntakeStore
from bot.intake.questions import load_questionnaire
from common.errors import ConfigError
from common.settings import HwbotSettings

REPO = Path(__file__).resolve().parents[2]
Q = load_questionnaire()

# Runs a terminal-style session in a fresh interpreter: answers come from argv, then EOF.
SESSION_SCRIPT = """
import json, sys
from bot.intake.persistence import IntakeStore
from bot.intake.session import intake_session
from common.settings import load_settings
lines = iter(sys.argv[1:])
store = IntakeStore.open(load_settings())
result = intake_session(lambda prompt: next(lines, None), lambda text: None, key="term-1", store=store, resume=True)
print(json.dumps({"outcome": result.outcome, "answered": result.answered,
                  "rec": result.recommendation.recommendation if result.recommendation else None}))
"""


def _run_session(state_dir: Path, answers: list[str]) -> dict:
    env = {**os.environ, "HWBOT_STATE_DIR": str(state_dir)}
    proc = subprocess.run(
        [sys.executable, "-c", SESSION_SCRIPT, *answers],
        capture_output=True, text=True, env=env, cwd=REPO, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_dialog_survives_a_process_restart(tmp_path: Path) -> None:
    first = _run_session(tmp_path, ["gcp", "massive", "none", "jax"])
    assert first == {"outcome": "eof", "answered": 4, "rec": None}

    stored = IntakeStore(tmp_path / DB_NAME).load("term-1")
    assert stored is not None and stored.asked == ["cloud", "scale", "custom_kernels", "framework"]
    assert stored.current == "architecture_changes"
    assert stored.answers == {"cloud": "google_cloud", "scale": "massive", "custom_kernels": "none", "framework": "jax"}

    # A new process picks up at the stored question; the verdict settles after 8 answers,
    # and "no" declines the 3 questions that could not change it.
    second = _run_session(tmp_path, ["rarely", "weeks", "yes", "production", "no"])
    assert second == {"outcome": "done", "answered": 8, "rec": "tpu"}
    assert IntakeStore(tmp_path / DB_NAME).load("term-1") is None  # finished dialogs leave no row


def _profile(i: int) -> dict[str, str]:
    """Dialog i's answers: option (i + question index) % n_options of every question."""
    return {q.field: q.options[(i + j) % len(q.options)].value for j, q in enumerate(Q.questions)}


def _answer(profile: dict[str, str], state: IntakeState) -> str:
    """The line a person with ``profile`` types at ``state`` (they want every question)."""
    if state.offered:
        return "yes"
    assert state.current is not None
    return str(Q.by_field(state.current).values().index(profile[state.current]) + 1)


def test_one_hundred_concurrent_dialogs_never_mix(tmp_path: Path) -> None:
    store = IntakeStore(tmp_path / DB_NAME)
    barrier = threading.Barrier(100)
    errors: list[BaseException] = []

    def worker(i: int) -> None:
        try:
            barrier.wait()
            key = f"slack:C{i:03d}:thread"
            profile = _profile(i)

            def step(cur: IntakeState | None) -> IntakeState:
                state = cur or start(Q).state
                return state if state.status == "done" else advance(state, _answer(profile, state), Q).state

            for _ in range(2 * len(Q.questions)):
                state = store.update(key, step)
                if state is not None and state.status == "done":
                    return
        except BaseException as exc:  # surfaced below; a thread cannot fail the test itself
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(100)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors[:3]
    assert len(store.keys()) == 100
    for i in range(100):
        state = store.load(f"slack:C{i:03d}:thread")
        assert state is not None and state.status == "done" and len(state.asked) == len(Q.questions)
        assert state.answers == _profile(i), f"dialog {i} got someone else's answers"


def test_racing_updates_on_one_key_lose_nothing(tmp_path: Path) -> None:
    store = IntakeStore(tmp_path / DB_NAME)
    store.save("shared", start(Q).state)
    # The same lines applied one after the other: what the race must end with.
    expected = start(Q).state
    for _ in Q.questions:
        expected = advance(expected, "skip", Q).state
    barrier = threading.Barrier(len(Q.questions))

    def worker() -> None:
        barrier.wait()
        store.update("shared", lambda cur: advance(cur, "skip", Q).state)

    threads = [threading.Thread(target=worker) for _ in Q.questions]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    final = store.load("shared")
    assert final == expected and final.status == "done"
    assert final.known() == {q.field: "unknown" for q in Q.questions}


def test_save_load_delete_and_update_to_none(tmp_path: Path) -> None:
    store = IntakeStore(tmp_path / DB_NAME)
    assert store.load("k") is None
    state = IntakeState(asked=["cloud", "scale"], current="framework",
                        answers={"cloud": "google_cloud", "scale": "massive"})
    store.save("k", state)
    assert store.load("k") == state
    store.update("k", lambda cur: None)
    assert store.load("k") is None
    store.save("k", state)
    store.delete("k")
    assert store.keys() == []


def test_wal_mode_and_a_corrupt_row_restarts_instead_of_crashing(tmp_path: Path) -> None:
    path = tmp_path / DB_NAME
    store = IntakeStore(path)
    bad_rows = {
        "bad": "{not json",
        "odd": '{"position": -4}',
        "field": '{"asked": ["gpu_count"], "answers": {"gpu_count": "8"}}',
        "value": '{"asked": ["cloud"], "answers": {"cloud": "mars"}}',
        "twice": '{"asked": ["cloud"], "current": "cloud", "answers": {"cloud": "on_prem"}}',
        "legacy_junk": '{"position": 2, "answers": {"stage": "someday"}}',
    }
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        for key, value in bad_rows.items():
            raw.execute("INSERT INTO kv(ns, key, value, expires) VALUES ('intake', ?, ?, 1e12)", (key, value))
    for key in bad_rows:
        assert store.load(key) is None, key


def test_expired_dialogs_are_gone(tmp_path: Path) -> None:
    path = tmp_path / DB_NAME
    IntakeStore(path).save("fresh", IntakeState())
    with sqlite3.connect(path) as raw:
        raw.execute("INSERT INTO kv(ns, key, value, expires) VALUES ('intake', 'ancient', '{}', 1)")
    assert IntakeStore(path).keys() == ["fresh"]


def test_default_state_dir_respects_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HWBOT_STATE_DIR", str(tmp_path / "explicit"))
    assert HwbotSettings().state_dir == tmp_path / "explicit"
    monkeypatch.delenv("HWBOT_STATE_DIR")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert HwbotSettings().state_dir == tmp_path / "xdg" / "hwbot"
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert HwbotSettings().state_dir == tmp_path / "home" / ".local" / "state" / "hwbot"
    monkeypatch.setenv("HWBOT_STATE_DIR", str(tmp_path / "made"))
    store = IntakeStore.open(HwbotSettings())
    assert store.path == tmp_path / "made" / DB_NAME and store.path.exists()


def test_unusable_state_dir_is_a_one_line_config_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(ConfigError) as info:
        IntakeStore(blocker / "sub" / DB_NAME)
    assert "HWBOT_STATE_DIR" in info.value.one_line() and "\n" not in info.value.one_line()

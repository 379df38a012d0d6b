"""The adaptive dialog's state round-trips through the store, on SQLite and on a real Redis,
at every phase (a question, a pending confirmation, a field stated in passing, the offer,
"answer the rest", done), and resumes exactly: the same text, the same next step. States
saved by the older fixed-order dialog are migrated, not crashed on."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.intake.dialog import Turn, advance, resume, start
from bot.intake.persistence import NAMESPACE, IntakeStore
from bot.intake.session import intake_session
from bot.state import StateStore
from tests.harness.backends import BACKENDS, open_backend_store
from tests.harness.redis_server import redis_server  # noqa: F401 - session fixture

pytestmark = pytest.mark.parametrize("backend", BACKENDS)


@pytest.fixture
def raw(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[StateStore]:
    opened = open_backend_store(backend, tmp_path, request)
    yield opened
    opened.close()


def _walk(lines: list[str]) -> Turn:
    turn = start()
    for line in lines:
        turn = advance(turn.state, line)
    return turn


PHASES = {
    "question": ["gcp", "massive"],
    "skipped": ["gcp", "skip"],
    "volunteered": ["AWS, and we use PyTorch"],
    "confirm": ["gcp", "massive", "we have custom CUDA kernels"],
    "missed": ["gcp", "banana"],
    "back": ["gcp", "massive", "back"],
    "offer": ["on prem"],
    "everything": ["on prem", "yes", "2"],
    "done": ["on prem", "no"],
}


@pytest.mark.parametrize("phase", sorted(PHASES))
def test_every_phase_round_trips_and_resumes_exactly(raw: StateStore, phase: str) -> None:
    store = IntakeStore(state=raw)
    turn = _walk(PHASES[phase])
    store.save("k", turn.state)
    loaded = store.load("k")
    assert loaded == turn.state
    assert resume(loaded).text == resume(turn.state).text
    for line in ("1", "yes", "no", "skip", "back"):
        assert advance(loaded, line) == advance(turn.state, line)


def test_a_positional_state_from_the_old_dialog_is_migrated(raw: StateStore) -> None:
    old = {"position": 3, "answers": {"stage": "production", "architecture_changes": "rarely",
                                       "custom_kernels": "none"}, "status": "asking", "misses": 0}
    raw.put(NAMESPACE, "old", json.dumps(old))
    store = IntakeStore(state=raw)
    state = store.load("old")
    assert state is not None and state.status == "asking"
    assert state.asked == ["stage", "architecture_changes", "custom_kernels"] and state.current is None
    # Resuming asks the most informative question left: the gate, which the old order had not reached.
    shown = resume(state)
    assert shown.state.current == "cloud" and shown.text.startswith("Question 4 (at most 11): Where must the work run?")
    # A whole session continues it and keeps the old answers.
    lines = iter(["on prem", "no"])
    result = intake_session(lambda prompt: next(lines, None), lambda text: None, key="old", store=store)
    assert result.outcome == "done" and result.recommendation is not None
    assert result.recommendation.recommendation == "gpu" and result.answered == 4
    assert store.load("old") is None


def test_an_unreadable_old_state_restarts_the_dialog(raw: StateStore) -> None:
    raw.put(NAMESPACE, "neg", json.dumps({"position": -1, "answers": {}}))
    raw.put(NAMESPACE, "junk", json.dumps({"position": 1, "answers": {"cloud": "mars"}}))
    store = IntakeStore(state=raw)
    assert store.load("neg") is None and store.load("junk") is None
    seen: list[str] = []
    lines = iter(["cancel"])
    intake_session(lambda prompt: next(lines, None), seen.append, key="junk", store=store)
    assert seen[0].startswith("At most 11 short questions") and seen[1].startswith("Question 1 (at most 11)")

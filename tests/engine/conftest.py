"""Fixtures shared by the engine tests."""

from __future__ import annotations

import pytest

from knowledge.evaluation.devset import load_dev_set
from knowledge.qa.answers import Answer


@pytest.fixture(scope="session")
def dev_answers(qa) -> dict[str, Answer]:  # type: ignore[no-untyped-def]
    """The session engine's answer to every dev question, asked once: two slow tests check the
    same answers (the floors, and the citation invariant with the sentence budgets), and asking
    272 questions twice was a minute of the suite."""
    return {item.id: qa.ask(item.question) for item in load_dev_set()}

"""Fixtures shared by the engine tests: the dev set's answers, and the learned extractor's encoder and
reader on the real ONNX export and the committed heads (module scope: one per test file)."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge.evaluation.devset import load_dev_set
from knowledge.qa.answers import Answer
from knowledge.recommend.learned.combine import ClauseReader
from knowledge.recommend.learned.heads import load_heads


@pytest.fixture(scope="session")
def dev_answers(qa) -> dict[str, Answer]:  # type: ignore[no-untyped-def]
    """The session engine's answer to every dev question, asked once: two slow tests check the
    same answers (the floors, and the citation invariant with the sentence budgets), and asking
    272 questions twice was a minute of the suite."""
    return {item.id: qa.ask(item.question) for item in load_dev_set()}


@pytest.fixture(scope="module")
def encoder(built_index: Path):  # type: ignore[no-untyped-def]
    from knowledge.index import clause_encoder

    return clause_encoder(built_index)


@pytest.fixture(scope="module")
def reader(encoder) -> ClauseReader:  # type: ignore[no-untyped-def]
    heads = load_heads(model_id=encoder.model_id, probe=encoder.probe())
    return ClauseReader(encode=lambda texts: encoder.encode(texts, progress=False), heads=heads)

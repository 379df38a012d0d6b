"""Parity: the ONNX query path answers the dev set byte for byte as sentence-transformers does.

Both engines share one loaded index; only the query encoder differs. Each answers every
dev-set question as ``ask --batch --json`` would (batched encodes, one JSON line per
question), and the lines are compared as bytes. The table also gives how close the
query vectors themselves are.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np

from bench.batch import ask_batch_lines
from bench.results import Section, Table, Target

if TYPE_CHECKING:  # pragma: no cover
    from indexer.embedder import Embedder
    from knowledge.qa.service import QAEngine

__all__ = ["run_parity"]


def run_parity(engine: QAEngine, embedder: Embedder, questions: list[str]) -> Section:
    """``engine`` runs on the ONNX encoder; ``embedder`` is the loaded sentence-transformers model."""
    from knowledge.qa.hygiene import clean_question
    from knowledge.qa.service import QAEngine as Engine

    started = time.perf_counter()
    st_engine = Engine(engine.store, embedder, engine.params)
    onnx_lines = ask_batch_lines(engine, questions)
    st_lines = ask_batch_lines(st_engine, questions)
    differ = [q for q, a, b in zip(questions, onnx_lines, st_lines) if a.encode() != b.encode()]
    texts = [clean_question(q)[0] for q in questions]
    cosines = np.sum(engine.embedder.encode(texts) * embedder.encode(texts, progress=False), axis=1)
    table = Table(
        headers=["dev questions", "JSON lines identical", "lines that differ", "min query-vector cosine"],
        rows=[[str(len(questions)), str(len(questions) - len(differ)), str(len(differ)), f"{float(cosines.min()):.8f}"]],
    )
    target = Target(name="dev-set answers, ONNX vs sentence-transformers", goal="byte-identical JSON",
                    measured=f"{len(questions) - len(differ)}/{len(questions)} identical", holds=not differ)
    return Section(
        key="parity",
        title="Answer parity",
        intro="Every dev-set question through ask --batch's code on both encoders, over the same loaded index.",
        tables=[table],
        targets=[target],
        notes=[f"Differs: {q}" for q in differ[:5]] or ["Every line is the same bytes on both paths."],
        data={"n": len(questions), "differ": differ, "min_cosine": float(cosines.min())},
        seconds=time.perf_counter() - started,
    )

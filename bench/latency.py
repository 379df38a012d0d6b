"""Warm answer latency: ``QAEngine.ask`` against a bare encode of the same question.

Everything ``ask`` does besides embedding the question (hygiene, the curated-FAQ check,
FAISS and BM25 search, fusion, sentence scoring, the answer object) is overhead over
that floor. Both are timed in one process, alternately, question by question, on the
labelled dev questions (in-domain and out-of-domain, so declines are timed too). A
per-stage breakdown, measured the same way, shows where the overhead goes.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

from bench.results import Section, Table, Target, fmt_ms, fmt_ratio
from bench.stats import interleave, median, percentile, ratio

if TYPE_CHECKING:  # pragma: no cover
    from knowledge.qa.service import QAEngine

__all__ = ["run_latency", "load_questionnaire", "LATENCY_TARGET"]

LATENCY_TARGET = 1.5


def load_questionnaire(limit: int | None = None) -> list[str]:
    """The dev set's questions, in file order (a realistic mix of answerable and not)."""
    from knowledge.evaluation import EVAL_DIR

    questions = []
    with open(EVAL_DIR / "dev.jsonl", encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                questions.append(json.loads(line)["question"])
    return questions[:limit] if limit else questions


def _stages(engine: QAEngine, question: str) -> dict[str, float]:
    """Seconds per stage of one hybrid ask: ``ask`` itself, marking the end of each of its steps."""
    out: dict[str, float] = {}
    last = time.perf_counter()

    def step(name: str) -> None:
        nonlocal last
        now = time.perf_counter()
        out[name] = now - last
        last = now

    engine.ask(question, on_step=step)
    return out


def run_latency(engine: QAEngine, *, questions: list[str], rounds: int) -> Section:
    """``engine`` is open (encoder and index loaded); its own query encoder is the floor."""
    started = time.perf_counter()
    encoder = engine.embedder
    for q in questions:  # warm-up: first calls pay for lazy inits, not steady state
        engine.ask(q)
        encoder.encode([q])
    ask_s: list[float] = []
    enc_s: list[float] = []
    declined = 0
    for q in questions:
        def ask_once(q: str = q) -> object:
            return engine.ask(q)

        def encode_once(q: str = q) -> object:
            return encoder.encode([q])

        a, b = interleave(ask_once, encode_once, rounds)
        ask_s.extend(a)
        enc_s.extend(b)
        declined += int(engine.ask(q).declined)
    stage_samples: dict[str, list[float]] = {}
    for q in questions:
        for name, secs in _stages(engine, q).items():
            stage_samples.setdefault(name, []).append(secs)
    p50 = ratio(median(ask_s), median(enc_s))
    p95 = ratio(percentile(ask_s, 95), percentile(enc_s, 95))
    table = Table(
        headers=["what", "p50", "p95", "samples"],
        rows=[
            [f"bare {type(encoder).__name__}.encode([question]) (floor)", fmt_ms(median(enc_s)), fmt_ms(percentile(enc_s, 95)), str(len(enc_s))],
            ["QAEngine.ask(question)", fmt_ms(median(ask_s)), fmt_ms(percentile(ask_s, 95)), str(len(ask_s))],
            ["ratio ask / floor", fmt_ratio(p50), fmt_ratio(p95), ""],
        ],
    )
    stages = Table(
        headers=["stage of ask", "median", "questions that reach it"],
        rows=[[name, fmt_ms(median(v)), str(len(v))] for name, v in stage_samples.items()],
    )
    target = Target(
        name="warm ask latency", goal="p50 and p95 <= 1.5x bare encode",
        measured=f"p50 {fmt_ratio(p50)}, p95 {fmt_ratio(p95)}",
        holds=p50 <= LATENCY_TARGET and p95 <= LATENCY_TARGET,
    )
    return Section(
        key="latency",
        title="Warm answer latency",
        intro=(f"{len(questions)} dev-set questions ({declined} declined), each asked {rounds} times alternately with a "
               f"bare encode of the same text, in one process with the model and index loaded."),
        tables=[table, stages],
        targets=[target],
        notes=["The stage table times ask's own steps as it runs them (hygiene, encoding, intent, curated-FAQ check, "
               "retrieval, composing); retrieve and compose only run for questions that get that far."],
        data={"ask_s": ask_s, "encode_s": enc_s, "p50_ratio": p50, "p95_ratio": p95,
              "stages": {k: median(v) for k, v in stage_samples.items()}},
        seconds=time.perf_counter() - started,
    )

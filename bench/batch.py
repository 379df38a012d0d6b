"""Batches: the per-question cost of ``ask --batch`` against a bare batched encode.

``ask --batch``, ``faq`` and ``eval`` know all their questions up front, so they encode
them in batches of 32 (``QAEngine.ask_many``) instead of one encoder call per question.
The floor is the least a batch can cost: onnxruntime + tokenizers encoding the same
questions 32 at a time, mean-pooled and normalized, with nothing else. What ``ask
--batch`` adds (hygiene, the curated-FAQ check, FAISS and BM25, composing, JSON) is
overhead over it. Both run in one warm process, interleaved; for context the table also
times the old way, one ``ask`` (one encode) per question.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

import numpy as np

from bench.results import Section, Table, Target, fmt_ms, fmt_ratio
from bench.stats import interleave, median, ratio

if TYPE_CHECKING:  # pragma: no cover
    from knowledge.qa.service import QAEngine

__all__ = ["run_batch", "BATCH_TARGET", "ask_batch_lines", "bare_batched_encode"]

BATCH_TARGET = 1.5
BATCH = 32


def bare_batched_encode(session: object, tokenizer: object, texts: list[str], batch: int = BATCH) -> np.ndarray:
    """The floor: tokenize, run, mean-pool and normalize, ``batch`` texts at a time."""
    out = []
    for start in range(0, len(texts), batch):
        enc = tokenizer.encode_batch(texts[start : start + batch])  # type: ignore[attr-defined]
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        types = np.array([e.type_ids for e in enc], dtype=np.int64)
        (hidden,) = session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})  # type: ignore[attr-defined]
        w = mask[:, :, None].astype(np.float32)
        vec = (hidden * w).sum(1) / w.sum(1)
        out.append(vec / np.linalg.norm(vec, axis=1, keepdims=True))
    return np.concatenate(out)


def _floor_parts(model_file: str) -> tuple[object, object]:
    import onnxruntime as ort
    from tokenizers import Tokenizer

    from indexer.query_encoder import SESSION_THREADS, model_dir

    tokenizer = Tokenizer.from_file(str(model_dir() / "tokenizer.json"))
    tokenizer.enable_truncation(256)
    tokenizer.enable_padding()
    options = ort.SessionOptions()  # the same threads as hwbot's own session, so only the work differs
    options.intra_op_num_threads = options.inter_op_num_threads = SESSION_THREADS
    return ort.InferenceSession(model_file, options, providers=["CPUExecutionProvider"]), tokenizer


def ask_batch_lines(engine: QAEngine, questions: list[str]) -> list[str]:
    """What ``hwbot ask --batch FILE --json`` does per line, minus reading the file."""
    from knowledge.qa.abstain import declined_answer

    return [json.dumps((a or declined_answer("")).to_contract(), ensure_ascii=False) for a in engine.ask_many(questions)]


def run_batch(engine: QAEngine, questions: list[str], *, n: int, rounds: int) -> Section:
    """``engine`` is open on the ONNX encoder; ``questions`` are cycled to ``n``."""
    started = time.perf_counter()
    record = engine.store.manifest.encoder
    if record is None:
        raise RuntimeError("the index records no ONNX export")
    session, tokenizer = _floor_parts(record.path)
    batch = [questions[i % len(questions)] for i in range(n)]
    ask_batch_lines(engine, batch[:BATCH])  # warm-up: lazy inits, not steady state
    bare_batched_encode(session, tokenizer, batch[:BATCH])
    ask_s, enc_s = interleave(lambda: ask_batch_lines(engine, batch), lambda: bare_batched_encode(session, tokenizer, batch), rounds)
    single = [time.perf_counter()]
    for q in batch[: min(n, 100)]:
        engine.ask(q)
    single_s = (time.perf_counter() - single[0]) / min(n, 100)
    per_ask, per_enc = median(ask_s) / n, median(enc_s) / n
    value = ratio(per_ask, per_enc)
    table = Table(
        headers=["what", "per question", "whole batch (median)", "vs floor"],
        rows=[
            [f"bare onnxruntime + tokenizers encode, batches of {BATCH} (floor)", fmt_ms(per_enc), f"{median(enc_s):.2f} s", "1.00x"],
            [f"ask --batch: QAEngine.ask_many, batches of {BATCH}, JSON lines", fmt_ms(per_ask), f"{median(ask_s):.2f} s", fmt_ratio(value)],
            ["for context: one QAEngine.ask (one encode) per question", fmt_ms(single_s), "-", fmt_ratio(ratio(single_s, per_enc))],
        ],
    )
    target = Target(name="ask --batch per question", goal="<= 1.5x a bare batched encode of the same questions",
                    measured=fmt_ratio(value), holds=value <= BATCH_TARGET)
    return Section(
        key="batch",
        title="Batch answering",
        intro=(f"{n} questions (the dev set's, cycled), {rounds} rounds of the whole batch interleaved with the floor, "
               "in one warm process on the ONNX encoder; medians."),
        tables=[table],
        targets=[target],
        notes=[f"The one-at-a-time row asks the first {min(n, 100)} questions once each."],
        data={"n": n, "ask_s": ask_s, "encode_s": enc_s, "ratio": value, "single_s": single_s},
        seconds=time.perf_counter() - started,
    )

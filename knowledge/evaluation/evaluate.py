"""The eval harness: retrieval and abstention quality on a labelled dev set.

The dev set (``knowledge/eval/dev.jsonl``) measures the answerer; it does not train
it. Only the abstention thresholds are calibrated on it, by a grid search over the
whole set (:func:`calibrate`), never by special-casing questions.

Definitions (in-domain questions only, unless said otherwise):
- Recall@k: share of questions with at least one labelled relevant chunk in the top k.
- MRR@10: mean reciprocal rank of the first relevant chunk within the top 10.
- Term hit: share of answered questions whose answer text contains the key term.
- Abstention precision / recall: of the declined questions, the share that are
  out-of-domain / of the out-of-domain questions, the share declined.
- False refusals: share of in-domain questions declined.
- Curated (hybrid only): how many questions a curated FAQ entry answered, and how
  many of those it answered wrongly (an out-of-domain question, or an entry that
  neither is nor cites a labelled chunk). A curated match is never a refusal.
"""

from __future__ import annotations

import itertools
import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from knowledge.qa.abstain import should_decline
from knowledge.qa.curated import CuratedMatch
from knowledge.qa.hygiene import clean_question
from knowledge.qa.params import AbstainParams
from knowledge.qa.retrieval import Evidence, Mode

#: The dev set and floors, package data beside this module.
EVAL_DIR = Path(__file__).resolve().parent / "data"

__all__ = [
    "DevItem",
    "Metrics",
    "Floors",
    "load_dev_set",
    "load_floors",
    "evaluate",
    "calibrate",
    "calibrate_curated",
    "MODES",
]

MODES: tuple[Mode, ...] = ("hybrid", "dense", "bm25")


class DevItem(BaseModel):
    id: str
    question: str
    domain: Literal["in", "out"]
    relevant: list[str] = Field(default_factory=list)
    terms: list[str] = Field(default_factory=list)


class Metrics(BaseModel):
    mode: str
    n_in: int
    n_out: int
    recall_at_1: float
    recall_at_3: float
    recall_at_5: float
    mrr_at_10: float
    term_hit: float
    abstain_precision: float
    abstain_recall: float
    false_refusal: float
    curated_answered: int = 0
    curated_wrong: int = 0


class Floors(BaseModel):
    recall_at_3: float
    ood_declined: float
    false_refusal_max: float

    def failures(self, m: Metrics) -> list[str]:
        out = []
        if m.recall_at_3 < self.recall_at_3:
            out.append(f"Recall@3 {m.recall_at_3:.3f} < {self.recall_at_3}")
        if m.abstain_recall < self.ood_declined:
            out.append(f"out-of-domain declined {m.abstain_recall:.3f} < {self.ood_declined}")
        if m.false_refusal > self.false_refusal_max:
            out.append(f"false refusals {m.false_refusal:.3f} > {self.false_refusal_max}")
        return out


def load_dev_set(path: Path | None = None) -> list[DevItem]:
    path = path or EVAL_DIR / "dev.jsonl"
    items = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                items.append(DevItem(**json.loads(line)))
            except (ValueError, TypeError) as exc:
                raise ValueError(f"{path.name}:{n}: {exc}") from None
    return items


def load_floors(path: Path | None = None) -> Floors:
    path = path or EVAL_DIR / "floors.toml"
    return Floors(**tomllib.loads(path.read_text(encoding="utf-8")))


@dataclass
class _Run:
    item: DevItem
    ranked: list[str]
    evidence: Evidence
    curated: CuratedMatch | None = None  # the curated entry that answers it (hybrid only)


def _relevant_ids(item: DevItem, expand: dict[str, set[str]]) -> set[str]:
    """Labelled chunks plus any chunk (e.g. a curated FAQ entry) that cites one of them."""
    rel = set(item.relevant)
    for chunk_id, cited in expand.items():
        if cited & rel:
            rel.add(chunk_id)
    return rel


def _runs(engine, items: list[DevItem], mode: Mode) -> list[_Run]:
    runs = []
    for item in items:
        text, _ = clean_question(item.question)
        hits, evidence, qvec = engine.retrieve(text, mode=mode, k=10)
        runs.append(_Run(item, [h.chunk.chunk_id for h in hits], evidence, engine.curated_match(qvec, mode)))
    return runs


def _score(runs: list[_Run], declined: list[bool], answers: dict[str, str], mode: str, expand: dict[str, set[str]]) -> Metrics:
    ins = [(r, d) for r, d in zip(runs, declined) if r.item.domain == "in"]
    outs = [(r, d) for r, d in zip(runs, declined) if r.item.domain == "out"]

    def first_rank(r: _Run) -> int | None:
        rel = _relevant_ids(r.item, expand)
        return next((i for i, c in enumerate(r.ranked) if c in rel), None)

    ranks = [first_rank(r) for r, _ in ins]
    n_in = max(1, len(ins))

    def recall(k: int) -> float:
        return sum(1 for x in ranks if x is not None and x < k) / n_in

    answered = [(r, answers.get(r.item.id, "")) for r, d in ins if not d and r.item.terms]
    term_hit = (
        sum(1 for r, a in answered if any(t.lower() in a.lower() for t in r.item.terms)) / len(answered)
        if answered
        else 0.0
    )
    n_declined = sum(1 for _, d in ins + outs if d)
    ood_declined = sum(1 for _, d in outs if d)
    return Metrics(
        mode=mode,
        n_in=len(ins),
        n_out=len(outs),
        recall_at_1=recall(1),
        recall_at_3=recall(3),
        recall_at_5=recall(5),
        mrr_at_10=sum(1 / (x + 1) for x in ranks if x is not None and x < 10) / n_in,
        term_hit=term_hit,
        abstain_precision=ood_declined / n_declined if n_declined else 1.0,
        abstain_recall=ood_declined / max(1, len(outs)),
        false_refusal=sum(1 for _, d in ins if d) / n_in,
        curated_answered=sum(1 for r in runs if r.curated is not None),
        curated_wrong=sum(1 for r in runs if r.curated is not None and not _curated_right(r.item, r.curated)),
    )


def _curated_right(item: DevItem, match: CuratedMatch) -> bool:
    """Whether a curated answer is the right one for a dev question.

    It is when the question is in-domain and is labelled with the FAQ entry itself or
    with the note chunk the entry rests on first (its first ``cites`` id). Any cited
    chunk would be too lenient: an entry about TPU trade-offs also cites the chunk
    defining a TPU, yet it is no answer to "What is a TPU?".
    """
    if item.domain != "in":
        return False
    primary = match.entry.cites[:1]
    return match.entry.chunk_id in item.relevant or bool(primary and primary[0] in item.relevant)


def evaluate(engine, items: list[DevItem], modes: tuple[Mode, ...] = MODES, expand: dict[str, set[str]] | None = None) -> list[Metrics]:
    """Metrics per retrieval mode, using the engine's real ``retrieve`` and ``ask``."""
    expand = expand or {}
    results = []
    for mode in modes:
        runs = _runs(engine, items, mode)
        # A curated match is answered from the FAQ whatever the abstention signals say.
        declined = [r.curated is None and should_decline(r.evidence, engine.params.abstain, mode) for r in runs]
        answers = {}
        for r, d in zip(runs, declined):
            if not d and r.item.domain == "in":
                answers[r.item.id] = engine.ask(r.item.question, mode=mode).answer
        results.append(_score(runs, declined, answers, mode, expand))
    return results


def calibrate(engine, items: list[DevItem], floors: Floors) -> tuple[AbstainParams, float]:
    """Grid-search the hybrid thresholds; returns the best params and their accuracy.

    The objective is balanced accuracy (in-domain answered, out-of-domain declined);
    ties prefer thresholds in the middle of the plateau, so the choice is not perched
    on one dev question.
    """
    runs = _runs(engine, items, "hybrid")
    base = engine.params.abstain
    grid = itertools.product(
        [x / 100 for x in range(30, 52, 2)],  # min_dense
        [x / 100 for x in range(40, 66, 2)],  # strong_dense
        [0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0],  # min_bm25
        [0.1, 0.15, 0.2, 0.25, 1.0],  # min_margin
    )
    scored = []
    for min_dense, strong, bm25, margin in grid:
        if strong < min_dense:
            continue
        p = base.model_copy(update={"min_dense": min_dense, "strong_dense": strong, "min_bm25": bm25, "min_margin": margin})
        ok_in = sum(1 for r in runs if r.item.domain == "in" and not should_decline(r.evidence, p))
        ok_out = sum(1 for r in runs if r.item.domain == "out" and should_decline(r.evidence, p))
        n_in = sum(1 for r in runs if r.item.domain == "in") or 1
        n_out = sum(1 for r in runs if r.item.domain == "out") or 1
        scored.append(((ok_in / n_in + ok_out / n_out) / 2, p))
    best = max(s for s, _ in scored)
    plateau = [p for s, p in scored if s == best]
    fields = ("min_dense", "strong_dense", "min_bm25", "min_margin")
    median = base.model_copy(
        update={f: sorted(getattr(p, f) for p in plateau)[len(plateau) // 2] for f in fields}
    )
    chosen = median if any(p == median for p in plateau) else plateau[len(plateau) // 2]
    # The single-signal baselines get their own best single threshold, so the
    # comparison with hybrid is fair.
    chosen = chosen.model_copy(
        update={
            "dense_only_min": _best_single(runs, lambda r: r.evidence.top_dense, [x / 100 for x in range(20, 70)]),
            "bm25_only_min": _best_single(runs, lambda r: r.evidence.top_bm25, [x / 4 for x in range(0, 24)]),
        }
    )
    return chosen, best


def _best_single(runs: list[_Run], signal, thresholds: list[float]) -> float:
    """The threshold (middle of the best plateau) maximizing balanced accuracy of one signal."""
    n_in = sum(1 for r in runs if r.item.domain == "in") or 1
    n_out = sum(1 for r in runs if r.item.domain == "out") or 1

    def acc(t: float) -> float:
        ok_in = sum(1 for r in runs if r.item.domain == "in" and signal(r) >= t)
        ok_out = sum(1 for r in runs if r.item.domain == "out" and signal(r) < t)
        return (ok_in / n_in + ok_out / n_out) / 2

    scores = [(acc(t), t) for t in thresholds]
    best = max(a for a, _ in scores)
    plateau = [t for a, t in scores if a == best]
    return plateau[len(plateau) // 2]


def calibrate_curated(engine, items: list[DevItem]) -> tuple[float, int, int]:
    """The curated-match threshold for the dev set: (threshold, right, wrong).

    Each question's closest curated question is found once; a threshold then lets some
    of those matches through, each right or wrong (see :func:`_curated_right`). A wrong
    curated answer overrides a hybrid answer that would have been fine and reads as
    authoritative, so the chosen threshold is the one with the fewest wrong matches
    and, among those, the most right ones; ties take the middle of the plateau, as for
    abstention.
    """
    closest = []
    for item in items:
        text, _ = clean_question(item.question)
        match = engine.curated.best(engine.embedder.encode_one(text))
        if match is not None:
            closest.append((item, match))
    scored = []
    for t in [x / 100 for x in range(50, 100)]:
        passed = [(i, m) for i, m in closest if m.similarity >= t]
        right = sum(1 for i, m in passed if _curated_right(i, m))
        scored.append(((-(len(passed) - right), right), t, right, len(passed) - right))
    best = max(key for key, *_ in scored)
    plateau = [row for row in scored if row[0] == best]
    _, threshold, right, wrong = plateau[len(plateau) // 2]
    return threshold, right, wrong

"""What one dev run measured, per half, with Wilson 95 % intervals.

Definitions:
- in-domain correct and cited: answered, citing at least one labelled chunk (or a FAQ
  chunk resting on one), and containing one of the item's key terms;
- out-of-domain declined: share of out-of-domain questions declined;
- false refusals: share of in-domain questions declined;
- Recall@k / MRR@10 (retrieval, per mode): a labelled chunk in the top k hits;
- lint violations: answers breaking the answer lint (:mod:`knowledge.evaluation.lint`);
  clean answers: share of answered questions with none;
- first sentence answers: answered in-domain questions whose lead sentence holds every key
  term (:func:`knowledge.evaluation.fresh.lead_sentence`, the fresh batches' measure);
- parts answered: for multi-part questions, share of parts whose key terms are all in the answer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pydantic import BaseModel

from knowledge.evaluation.devset import DevItem

__all__ = [
    "aligned", "wilson", "Rate", "ItemResult", "HalfReport", "RetrievalRow", "relevant_ids", "summarize"]


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion (95 % by default)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))



def aligned(rows: Sequence[tuple[str, object]], prefix: str = "") -> list[str]:
    """``label: value`` lines with every value in one column: the reports are read by eye,
    figure against figure, so the column must not depend on how long each label is."""
    width = max((len(label) for label, _ in rows), default=0) + 2
    return [f"{prefix}{label + ':':<{width}}{value}" for label, value in rows]

class Rate(BaseModel):
    k: int
    n: int

    @property
    def value(self) -> float:
        return self.k / self.n if self.n else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.k, self.n)

    def __str__(self) -> str:
        lo, hi = self.interval
        return f"{self.value:.3f} ({self.k}/{self.n}, 95% CI {lo:.3f}-{hi:.3f})"


class ItemResult(BaseModel):
    """One dev question's answer, judged."""

    id: str
    question: str
    domain: str
    category: str
    half: str
    intent: str
    declined: bool
    mode: str
    cited_relevant: bool
    has_term: bool
    lint: list[str] = []
    answer: str = ""
    first_sentence: bool = False
    parts_answered: int = 0
    parts: int = 0

    @property
    def correct_and_cited(self) -> bool:
        return self.domain == "in" and not self.declined and self.cited_relevant and self.has_term


class RetrievalRow(BaseModel):
    mode: str
    recall_at_1: float
    recall_at_3: float
    recall_at_5: float
    mrr_at_10: float


class HalfReport(BaseModel):
    half: str
    in_correct_cited: Rate
    ood_declined: Rate
    false_refusal: Rate
    lint_violations: int
    answered_in: int
    per_category: dict[str, Rate] = {}
    first_sentence: Rate = Rate(k=0, n=0)
    parts_answered: Rate = Rate(k=0, n=0)
    clean: Rate = Rate(k=0, n=0)

    def lines(self) -> list[str]:
        out = aligned([
            ("in-domain correct and cited", self.in_correct_cited),
            ("out-of-domain declined", self.ood_declined),
            ("false refusals", self.false_refusal),
            ("answer-lint violations", self.lint_violations),
            ("first sentence answers", self.first_sentence),
            ("multi-part, parts answered", self.parts_answered),
            ("clean answers (lint)", self.clean),
        ], prefix=f"[{self.half}] ")
        out += [f"[{self.half}]   {cat:<13} {rate}" for cat, rate in sorted(self.per_category.items())]
        return out


def relevant_ids(item: DevItem, expand: dict[str, set[str]]) -> set[str]:
    """Labelled chunks plus any chunk (e.g. a curated FAQ entry) that cites one of them."""
    rel = set(item.relevant)
    for chunk_id, cited in expand.items():
        if cited & rel:
            rel.add(chunk_id)
    return rel


def summarize(half: str, results: list[ItemResult]) -> HalfReport:
    ins = [r for r in results if r.domain == "in"]
    outs = [r for r in results if r.domain == "out"]
    cats: dict[str, Rate] = {}
    for cat in sorted({r.category for r in results}):
        mine = [r for r in results if r.category == cat]
        ok = sum(1 for r in mine if (r.correct_and_cited if r.domain == "in" else r.declined))
        cats[cat] = Rate(k=ok, n=len(mine))
    return HalfReport(
        half=half,
        in_correct_cited=Rate(k=sum(1 for r in ins if r.correct_and_cited), n=len(ins)),
        ood_declined=Rate(k=sum(1 for r in outs if r.declined), n=len(outs)),
        false_refusal=Rate(k=sum(1 for r in ins if r.declined), n=len(ins)),
        lint_violations=sum(1 for r in results if r.lint),
        answered_in=sum(1 for r in ins if not r.declined),
        per_category=cats,
        first_sentence=Rate(k=sum(1 for r in ins if r.first_sentence), n=len(ins)),
        parts_answered=Rate(k=sum(r.parts_answered for r in ins), n=sum(r.parts for r in ins)),
        clean=Rate(k=sum(1 for r in results if not r.declined and not r.lint), n=sum(1 for r in results if not r.declined)),
    )

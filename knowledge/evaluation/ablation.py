"""The extractor's ablation: rules only, clause heads only, and both combined, on the same texts.

Two kinds of text, scored with the fresh-batch metrics (:func:`~knowledge.evaluation.fresh.score_messages`:
field recall, field precision, exact, invented):

- a fresh batch of messages (``hwbot eval --fresh FILE --extractor MODE``): the honest figure;
- the labelled clauses' ``validation`` split (``hwbot eval --extractor-split``), each clause
  read as a one-line message, and as short messages made of three consecutive clauses
  (skipping any that would label one field two ways). The extractor was fitted on ``train``
  and its thresholds chosen on ``validation``, so these rows are a quick check, not a held-out
  figure; the rules were written before any of these clauses existed.
"""

from __future__ import annotations

from pydantic import BaseModel

from knowledge.evaluation.fresh import FreshMessage, MessageBatchReport, score_messages
from knowledge.recommend.learned.combine import MODES, ClauseReader, Mode, extract_message
from knowledge.recommend.learned.data import LabelledClause, Part, load_clauses, part_of

__all__ = ["split_messages", "score_variant", "AblationRow", "ablation_rows", "format_rows"]

#: Clauses joined into one short message for the message-level rows.
WINDOW = 3


def _joined(group: list[LabelledClause]) -> FreshMessage | None:
    labels: dict[str, str] = {}
    for item in group:
        for name, value in item.labels.items():
            if labels.setdefault(name, value) != value:
                return None
    text = ". ".join(i.text.rstrip(". ") for i in group) + "."
    return FreshMessage(id="+".join(i.id for i in group), text=text, expect=labels)


def split_messages(part: Part, *, joined: bool) -> list[FreshMessage]:
    """One split's clauses as messages: one each, or :data:`WINDOW` consecutive ones joined."""
    items = [i for i in load_clauses() if part_of(i.id) == part]
    if not joined:
        return [FreshMessage(id=i.id, text=i.text, expect=dict(i.labels)) for i in items]
    groups = (_joined(items[k: k + WINDOW]) for k in range(0, len(items) - WINDOW + 1, WINDOW))
    return [g for g in groups if g is not None]


def score_variant(items: list[FreshMessage], reader: ClauseReader | None, mode: Mode) -> MessageBatchReport:
    return score_messages(items, [extract_message(i.text, reader, mode).profile().known() for i in items])


class AblationRow(BaseModel):
    texts: str
    mode: str
    recall: float
    precision: float
    exact: float
    invented: float
    n: int


def ablation_rows(reader: ClauseReader) -> list[AblationRow]:
    """Every variant on the validation split, clause by clause and joined."""
    rows = []
    for part in ("validation",):
        for joined in (False, True):
            items = split_messages(part, joined=joined)
            for mode in MODES:
                r = score_variant(items, reader, mode)
                rows.append(AblationRow(
                    texts=f"{part} {'messages' if joined else 'clauses'}", mode=mode, recall=r.recall.value,
                    precision=r.precision.value, exact=r.exact.value, invented=r.with_invented.value, n=len(items)))
    return rows


def format_rows(rows: list[AblationRow]) -> str:
    head = f"{'texts':<22} {'variant':<9} {'recall':>6} {'precision':>9} {'exact':>6} {'invented':>8}"
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(f"{r.texts + f' ({r.n})':<22} {r.mode:<9} {r.recall:6.3f} {r.precision:9.3f} {r.exact:6.3f} {r.invented:8.3f}")
    return "\n".join(lines)

"""Fresh batches: first measurements on wording nobody tuned on.

A fresh batch is written by someone who has seen neither hwbot's outputs nor the data it
learns from (dev set, sentence forms, phrasings), *before* the change it tests. It is
measured once, the figures are recorded in ``docs/quality.md`` with the date and commit,
and only then may it join the tuning data. Re-measuring a batch after tuning on it says
nothing about unseen wording, so this module only scores; it never stores results.

Two kinds of batch, told apart by their keys:

- **questions** (``question``, ``domain``, ``terms``, optional ``parts``): scored on what
  ``hwbot ask --batch --json`` printed for them. A term is a phrase of the notes; ``a|b``
  lists alternatives, any one of which counts. Metrics:
  - *first sentence answers*: every key term is in the answer's lead sentence;
  - *key terms anywhere, cited*: every key term is in the answer, which cites a chunk;
  - *parts answered*: for multi-part questions, share of parts whose terms are all in the answer;
  - *false refusals*, *out-of-domain declined*.
- **messages** (``text``, ``expect``): scored on ``profile_from_text``. Metrics: field
  recall (labelled fields found with the right value), field precision (fields set that
  are right), messages understood exactly, messages with an invented field (a field the
  label does not state).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from common.errors import InputError
from common.textio import read_text_file
from common.validation import one_line_errors
from knowledge.evaluation.metrics import Rate, aligned

__all__ = [
    "FreshQuestion", "FreshMessage", "QuestionBatchReport", "MessageBatchReport",
    "load_fresh_batch", "lead_sentence", "has_term", "plain_answer", "score_questions", "score_messages",
]

#: A citation as the answer text prints it, after each sentence.
_CITE = re.compile(r"\s*\[[A-Za-z0-9_\-]+:c\d{4}\]")


class FreshQuestion(BaseModel):
    """One question of a fresh batch, labelled by its writer."""

    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)

    id: str = Field(min_length=1)
    question: str
    domain: Literal["in", "out"]
    category: str = ""
    ask: str = ""
    style: str = Field(default="", alias="register")  # terse, typo, long_situation, ...
    terms: list[str] = []
    parts: list[list[str]] = []
    object: str = ""


class FreshMessage(BaseModel):
    """One message of a fresh batch with the profile fields it states."""

    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)

    id: str = Field(min_length=1)
    text: str
    expect: dict[str, str] = {}
    style: str = Field(default="", alias="register")  # terse, typo, long_situation, ...
    traps: list[str] = []


def load_fresh_batch(path: Path) -> list[FreshQuestion] | list[FreshMessage]:
    """A batch file (JSON lines), validated whole: one bad line names its line number."""
    text = read_text_file(path, expected="a JSON-lines fresh batch", max_bytes=5_000_000)
    rows: list[dict[str, Any]] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except ValueError as exc:
                raise InputError(f"{path.name}:{n}: not JSON ({exc})") from None
    if not rows:
        raise InputError(f"{path.name}: the batch is empty")
    kind = FreshQuestion if "question" in rows[0] else FreshMessage
    items = []
    for n, row in enumerate(rows, start=1):
        try:
            items.append(kind.model_validate(row))
        except ValidationError as exc:
            raise InputError(f"{path.name}:{n}: {one_line_errors(exc)}") from None
    return items  # type: ignore[return-value]


def plain_answer(answer: str) -> str:
    """The answer text without its citation markers."""
    return _CITE.sub("", answer)


_plain = plain_answer


def lead_sentence(answer: str) -> str:
    """The answer's first sentence: everything before its first citation (or first line)."""
    first = _CITE.search(answer)
    head = answer[: first.start()] if first else answer.split("\n", 1)[0]
    return head.strip()


def part_leads(answer: str, question: str) -> list[str]:
    """The first sentence of each labelled section of a multi-part answer, its label removed.

    A multi-part answer gives each ask a line of its own, opened by a label taken from the
    question's words ("what tools help when debugging jitted JAX…: In JAX, ..."). The label is
    cut off, so the question's own words never count as the answer's."""
    leads = []
    asked = " ".join(question.lower().split())
    for line in answer.split("\n"):
        for _ in range(3):  # a label may hold a colon of its own ("two q's on jax: (1) why…: ...")
            label, sep, rest = line.partition(": ")
            if not (sep and label.rstrip("…").strip().lower() in asked):
                break
            line = rest
        if line.strip():
            leads.append(lead_sentence(line))
    return leads


def _sections_answer(item: FreshQuestion, text: str) -> bool:
    """A multi-part question answered in sections: each part's terms in the lead sentence of some
    section (one sentence cannot answer three asks)."""
    leads = part_leads(text, item.question) if len(item.parts) > 1 else []
    return len(leads) > 1 and all(any(all(has_term(lead, t) for t in part) for lead in leads) for part in item.parts)


def has_term(text: str, term: str) -> bool:
    """A key term (``a|b``: any alternative) occurs in the text, case-insensitively."""
    low = text.lower()
    return any(alt.strip().lower() in low for alt in term.split("|") if alt.strip())


class QuestionResult(BaseModel):
    id: str
    question: str
    domain: str
    ask: str
    style: str
    declined: bool
    first_sentence: bool
    #: the rule before multi-part answers were judged per section: every term in the answer's first sentence
    lead_has_all_terms: bool = False
    anywhere_cited: bool
    parts_answered: int
    parts: int
    answer: str


class QuestionBatchReport(BaseModel):
    first_sentence: Rate
    lead_has_all_terms: Rate
    anywhere_cited: Rate
    parts_answered: Rate
    false_refusal: Rate
    ood_declined: Rate
    items: list[QuestionResult]

    def lines(self) -> list[str]:
        return aligned([
            ("in-domain, the first sentence answers", self.first_sentence),
            ("  (before the per-part rule: all terms in sentence one)", self.lead_has_all_terms),
            ("in-domain, key terms anywhere, cited", self.anywhere_cited),
            ("multi-part, parts answered", self.parts_answered),
            ("false refusals", self.false_refusal),
            ("out-of-domain declined", self.ood_declined),
        ])


def score_questions(items: list[FreshQuestion], answers: Iterable[Mapping[str, Any]]) -> QuestionBatchReport:
    """Judge ``ask --json`` objects (same order as ``items``) against the batch's labels."""
    results = []
    for item, got in zip(items, answers, strict=True):
        text = str(got.get("answer", ""))
        declined = bool(got.get("declined"))
        cited = bool(got.get("citations"))
        plain = _plain(text)
        lead_ok = not declined and bool(item.terms) and all(has_term(lead_sentence(text), t) for t in item.terms)
        terms_ok = bool(item.terms) and all(has_term(plain, t) for t in item.terms)
        parts_ok = sum(1 for p in item.parts if all(has_term(plain, t) for t in p))
        results.append(QuestionResult(
            id=item.id, question=item.question, domain=item.domain, ask=item.ask, style=item.style,
            declined=declined,
            first_sentence=lead_ok or (not declined and bool(item.terms) and _sections_answer(item, text)),
            lead_has_all_terms=lead_ok,
            anywhere_cited=not declined and cited and terms_ok,
            parts_answered=0 if declined else parts_ok, parts=len(item.parts), answer=text,
        ))
    ins = [r for r in results if r.domain == "in"]
    outs = [r for r in results if r.domain == "out"]
    return QuestionBatchReport(
        first_sentence=Rate(k=sum(r.first_sentence for r in ins), n=len(ins)),
        lead_has_all_terms=Rate(k=sum(r.lead_has_all_terms for r in ins), n=len(ins)),
        anywhere_cited=Rate(k=sum(r.anywhere_cited for r in ins), n=len(ins)),
        parts_answered=Rate(k=sum(r.parts_answered for r in ins), n=sum(r.parts for r in ins)),
        false_refusal=Rate(k=sum(r.declined for r in ins), n=len(ins)),
        ood_declined=Rate(k=sum(r.declined for r in outs), n=len(outs)),
        items=results,
    )


class MessageResult(BaseModel):
    id: str
    text: str
    expect: dict[str, str]
    got: dict[str, str]

    @property
    def right(self) -> int:
        return sum(1 for f, v in self.got.items() if self.expect.get(f) == v)

    @property
    def invented(self) -> list[str]:
        return sorted(f for f in self.got if f not in self.expect)


class MessageBatchReport(BaseModel):
    recall: Rate
    precision: Rate
    exact: Rate
    with_invented: Rate
    items: list[MessageResult]

    def lines(self) -> list[str]:
        return aligned([
            ("field recall (stated fields, right value)", self.recall),
            ("field precision (set fields that are right)", self.precision),
            ("messages understood exactly", self.exact),
            ("messages with an invented field", self.with_invented),
        ])


def score_messages(items: list[FreshMessage], got: Iterable[Mapping[str, str]]) -> MessageBatchReport:
    """Judge extracted profiles (``{field: value}`` of set fields, same order) against the labels."""
    results = [MessageResult(id=i.id, text=i.text, expect=dict(i.expect), got=dict(g)) for i, g in zip(items, got, strict=True)]
    labelled = sum(len(r.expect) for r in results)
    returned = sum(len(r.got) for r in results)
    right = sum(r.right for r in results)
    return MessageBatchReport(
        recall=Rate(k=right, n=labelled),
        precision=Rate(k=right, n=returned),
        exact=Rate(k=sum(1 for r in results if r.got == r.expect), n=len(results)),
        with_invented=Rate(k=sum(1 for r in results if r.invented), n=len(results)),
        items=results,
    )

"""Implied answers: what the stated answers (and the message's words) say about unsaid fields.

Why: a person who writes "the model has been frozen for a year" has told us the stage
without naming it, and scoring that stage as uniformly unknown would plan an exploration
blocker nobody has. The rules are data (``implied.toml``, validated with pydantic, each with
a one-line ``because`` and a citation of the notes); this module only applies them.

Rules of application, in order of precedence:

* anything the person **states** wins: a stated field is never implied, and a field that
  is waiting for a confirmation is not implied either (we asked; we do not answer for them);
* a rule's conditions read stated and already implied answers, so implications chain
  (a TPU slice implies Google Cloud); the loop stops when nothing new is implied;
* two rules implying different values for one field imply the less TPU-friendly of them
  (the ``[order]`` of the decision model), so an implication never claims more than its
  weakest premise.

Text conditions are matched here, not by the extractor, so each carries a guard: a negation,
a plan or a condition before the match in the same clause ("not frozen", "once it is
frozen") cancels it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from common.errors import HwbotError, RuleError
from common.validation import Regex, compiled, load_rule_file
from knowledge.recommend.profile import FIELD_VALUES, UNKNOWN

__all__ = ["IMPLIED_FILE", "Implied", "ImplicationRule", "Implications", "load_implications", "text_hits", "implied"]

IMPLIED_FILE = Path(__file__).resolve().parent / "implied.toml"


class Guard(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    #: words that, before a text match in the same clause, cancel it
    before: Regex
    #: what ends a clause
    clause: Regex


class ImplicationRule(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    because: str = Field(min_length=1)
    when: dict[str, tuple[str, ...]] = {}
    evidence: dict[str, str] = {}
    text: tuple[str, ...] = ()
    then: dict[str, str] = Field(min_length=1)
    subject: tuple[str, ...] = ()
    citations: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _valid(self) -> "ImplicationRule":
        if not (self.when or self.evidence or self.text):
            raise ValueError(f"rule {self.id}: needs a condition (when, evidence or text)")
        for f, values in self.when.items():
            if f not in FIELD_VALUES or not values or any(v not in FIELD_VALUES[f] or v == UNKNOWN for v in values):
                raise ValueError(f"rule {self.id}: when {f} = {list(values)} names no profile answer")
        for f, pattern in self.evidence.items():
            if f not in FIELD_VALUES:
                raise ValueError(f"rule {self.id}: evidence names {f!r}, not a profile field")
            compiled(pattern)
        for pattern in self.text:
            compiled(pattern)
        for f, v in self.then.items():
            if f not in FIELD_VALUES or v not in FIELD_VALUES[f] or v == UNKNOWN:
                raise ValueError(f"rule {self.id}: then {f} = {v!r} is not a profile answer")
            if f in self.when or f in self.evidence:
                raise ValueError(f"rule {self.id}: implies {f}, which it also reads")
        if self.citations and not self.subject:
            raise ValueError(f"rule {self.id}: a citation needs a subject the cited chunk mentions")
        return self


class Implications(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    guard: Guard
    rule: tuple[ImplicationRule, ...]

    @model_validator(mode="after")
    def _unique(self) -> "Implications":
        ids = [r.id for r in self.rule]
        if len(ids) != len(set(ids)):
            raise ValueError("two implication rules share an id")
        return self


class Implied(BaseModel):
    """One implied answer: the value, the one-line reason, and the rule it came from."""

    model_config = ConfigDict(frozen=True)

    value: str
    because: str
    rule: str
    citations: tuple[str, ...] = ()


def _check_citations(rules: Implications) -> None:
    """Every citation exists and its chunk mentions the rule's subject (as the rule files' citations do)."""
    from knowledge.recommend.rules import chunk_catalog

    catalog = chunk_catalog()
    for rule in rules.rule:
        for cid in rule.citations:
            chunk = catalog.get(cid)
            if chunk is None:
                raise RuleError(f"{IMPLIED_FILE.name}: rule {rule.id} cites {cid!r}, which is not in the notes")
            text = " ".join([*chunk.heading_path, chunk.text]).lower()
            if not any(s.lower() in text for s in rule.subject):
                raise RuleError(f"{IMPLIED_FILE.name}: rule {rule.id}: chunk {cid} does not mention {', '.join(rule.subject)}")


@lru_cache(maxsize=4)
def load_implications(path: Path = IMPLIED_FILE, check_citations: bool = True) -> Implications:
    """Parse and validate the rules once per process; a broken file is a one-line RuleError."""
    rules = load_rule_file(path, Implications)
    if check_citations:
        try:
            _check_citations(rules)
        except HwbotError:
            raise
        except OSError as exc:
            raise RuleError(f"{path.name}: cannot read the notes to check citations: {exc}") from None
    return rules


@lru_cache(maxsize=64)
def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def text_hits(text: str, rules: Implications | None = None,
              keep: Callable[[str, int, int], bool] | None = None) -> dict[str, str]:
    """Rule id -> the words of ``text`` that satisfy its ``text`` condition (guarded).

    ``keep(text, start, end)``, when given, is the extractor's judgement of a match's context
    (:func:`knowledge.recommend.textual.states_the_team`): "a different team in the bank is on
    TPU v4 pods" or "would a v5p slice pay off?" implies nothing about the team asking."""
    rules = rules or load_implications()
    guard, ends = _rx(rules.guard.before), _rx(rules.guard.clause)
    out: dict[str, str] = {}
    for rule in rules.rule:
        for pattern in rule.text:
            for m in _rx(pattern).finditer(text):
                starts = [e.end() for e in ends.finditer(text, 0, m.start())]
                clause = text[starts[-1] if starts else 0:m.start()]
                if guard.search(clause) is None and (keep is None or keep(text, m.start(), m.end())):
                    out.setdefault(rule.id, m.group(0))
                    break
            if rule.id in out:
                break
    return out


def implied(
    stated: Mapping[str, tuple[str, str]],
    hits: Mapping[str, str] | None = None,
    *,
    pending: set[str] | frozenset[str] = frozenset(),
    order: Mapping[str, tuple[str, ...]] | None = None,
    rules: Implications | None = None,
) -> dict[str, Implied]:
    """The implied answers for ``stated`` (field -> (value, evidence words)) and text ``hits``.

    ``pending`` fields (awaiting a confirmation) are never implied. ``order`` is each field's
    values from best for a TPU to worst (the decision model's); by default the shipped one.
    """
    rules = rules or load_implications()
    hits = hits or {}
    if order is None:
        from knowledge.recommend.recommender import shipped_rules

        order = shipped_rules().order
    known = {f: v for f, (v, _) in stated.items() if v != UNKNOWN}
    out: dict[str, Implied] = {}
    changed = True
    while changed:
        changed = False
        values = {**{f: i.value for f, i in out.items()}, **known}
        for rule in rules.rule:
            if rule.text and rule.id not in hits:
                continue
            if any(values.get(f) not in vs for f, vs in rule.when.items()):
                continue
            if any(f not in known or not _rx(p).search(stated[f][1]) for f, p in rule.evidence.items()):
                continue
            for f, v in rule.then.items():
                if f in known or f in pending:
                    continue
                held = out.get(f)
                if held is not None and order[f].index(held.value) >= order[f].index(v):
                    continue  # already implied, and as cautiously
                out[f] = Implied(value=v, because=rule.because, rule=rule.id, citations=rule.citations)
                changed = True
    return out

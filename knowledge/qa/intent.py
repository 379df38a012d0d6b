"""What a question asks for: a definition, a reason, a procedure, a choice, a figure, code...

The intent sets the answer's shape (its length budget, whether it leads with a verdict)
and what evidence it needs (a figure or code question is only answered when the chosen
sentences hold a figure of that kind or code). It is decided from data
(``data/intents.toml``): cue patterns first, in the file's order, then the nearest
labelled prototype. Prototypes are embedded once, when the classifier is built, with the
same model as the questions, so classifying costs one small matrix product.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal, Protocol

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = [
    "without_form", "form_free",
    "IntentName",
    "INTENTS",
    "CHOICE_INTENTS",
    "IntentSpec",
    "IntentData",
    "Intent",
    "IntentClassifier",
    "intent_data",
    "brevity_limit",
]

IntentName = Literal[
    "out_of_scope", "code", "figure", "situational", "comparison", "why", "how", "definition", "yes_no"
]
INTENTS: tuple[str, ...] = ("out_of_scope", "code", "figure", "situational", "comparison", "why", "how", "definition", "yes_no")
#: Intents whose answer leads with a verdict (GPU, TPU, or what the choice depends on).
CHOICE_INTENTS = frozenset({"comparison", "situational"})

_FILE = Path(__file__).with_name("data") / "intents.toml"
#: Intents only a cue can select (the prototype fallback never does; see ``classify``).
_CUE_ONLY = frozenset({"code", "figure"})


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _compile_all(patterns: list[str]) -> list[str]:
    for p in patterns:
        # a bad pattern fails at load, naming itself in the error; compiled with the flag the
        # classifier uses, so re's cache hands it the same object (no second compile on a cold ask)
        re.compile(p, re.I)
    return patterns


class IntentSpec(_Strict):
    name: IntentName
    max_sentences: int = Field(ge=0, le=8)
    cues: list[str] = []
    prototypes: list[str] = Field(min_length=1)

    _check = field_validator("cues")(classmethod(lambda cls, v: _compile_all(v)))


class FigureKind(_Strict):
    asks: list[str] = Field(min_length=1)
    evidence: str

    _check = field_validator("asks")(classmethod(lambda cls, v: _compile_all(v)))


class ScopeParams(_Strict):
    min_similarity: float = Field(ge=0, le=1)
    min_lead: float = Field(ge=0, le=1)


class Brevity(_Strict):
    one: list[str]
    short: list[str]
    #: words of courtesy around a request ("pls", "thanks"): like a length, they say nothing of the topic
    courtesy: list[str] = []


class CodeEvidence(_Strict):
    evidence: str


class IntentData(_Strict):
    scope: ScopeParams
    brevity: Brevity
    intent: list[IntentSpec]
    figure_kinds: dict[str, FigureKind]
    code: CodeEvidence

    def spec(self, name: str) -> IntentSpec:
        return next(s for s in self.intent if s.name == name)


@lru_cache(maxsize=1)
def intent_data() -> IntentData:
    data = IntentData(**tomllib.loads(_FILE.read_text(encoding="utf-8")))
    missing = set(INTENTS) - {s.name for s in data.intent}
    if missing:
        raise ValueError(f"{_FILE.name}: no [[intent]] for {sorted(missing)}")
    return data


def brevity_limit(question: str) -> int | None:
    """1 for "in one sentence", 2 for "short answer", else None (the intent's budget)."""
    b = intent_data().brevity
    if any(re.search(p, question, re.I) for p in b.one):
        return 1
    if any(re.search(p, question, re.I) for p in b.short):
        return 2
    return None


def without_form(question: str) -> str:
    """The question without what it says about the answer's form ("in one line pls", "tl;dr",
    "briefly", "thanks"): what is left is what it is about. "pallas = ? in one line pls" reads
    out of the domain to the gate while "pallas = ?" does not."""
    b = intent_data().brevity
    out = question
    for p in (*b.one, *b.short, *b.courtesy):
        out = re.sub(p, " ", out, flags=re.I)
    return re.sub(r"\s+", " ", out).strip(" ,;:-")


def form_free(question: str) -> str:
    """:func:`without_form` when it takes something away and leaves words, else "" (nothing to judge again)."""
    plain = without_form(question)
    return plain if plain != question.strip() and re.search(r"\w", plain) else ""


@dataclass(frozen=True)
class Intent:
    """A question's intent, the cue or prototype that decided it, and its length budget."""

    name: str
    max_sentences: int
    decided_by: str  # "cue: <pattern>" or "prototype: <text>"
    figure_kind: str | None = None

    def evidence_pattern(self) -> re.Pattern[str] | None:
        """What the evidence must hold for this intent to be answered (None: anything)."""
        data = intent_data()
        if self.name == "code":
            return re.compile(data.code.evidence, re.M)
        if self.name == "figure" and self.figure_kind is not None:
            return re.compile(data.figure_kinds[self.figure_kind].evidence, re.I)
        return None


class _Encoder(Protocol):
    def encode(self, texts: list[str]) -> np.ndarray: ...


class IntentClassifier:
    """Cue patterns, then the nearest prototype; built once per engine."""

    def __init__(self, embedder: _Encoder, data: IntentData | None = None) -> None:
        self.data = data or intent_data()
        self._labels: list[str] = []
        texts: list[str] = []
        for spec in self.data.intent:
            texts.extend(spec.prototypes)
            self._labels.extend([spec.name] * len(spec.prototypes))
        self._texts = texts
        self._vectors = np.asarray(embedder.encode(texts), dtype=np.float32)
        self._cues = [(s.name, [re.compile(p, re.I) for p in s.cues]) for s in self.data.intent]

    def _figure_kind(self, question: str) -> str:
        for kind, spec in self.data.figure_kinds.items():
            if any(re.search(p, question, re.I) for p in spec.asks):
                return kind
        return "count"

    def _make(self, name: str, decided_by: str, question: str) -> Intent:
        budget = self.data.spec(name).max_sentences
        short = brevity_limit(question)
        if short is not None and budget:
            budget = min(budget, short)
        kind = self._figure_kind(question) if name == "figure" else None
        return Intent(name=name, max_sentences=budget, decided_by=decided_by, figure_kind=kind)

    def classify(self, question: str, qvec: np.ndarray, *, in_scope: bool = False) -> Intent:
        """The question's intent. ``in_scope``: the question is known to be in the domain (the
        out-of-domain gate is confident), so "out_of_scope" is not a candidate."""
        sims = self._vectors @ qvec
        out_idx = [i for i, lab in enumerate(self._labels) if lab == "out_of_scope"]
        in_idx = [i for i, lab in enumerate(self._labels) if lab != "out_of_scope"]
        best_out = max(out_idx, key=lambda i: sims[i])
        best_in = max(in_idx, key=lambda i: sims[i])
        scope = self.data.scope
        if not in_scope and sims[best_out] >= scope.min_similarity and sims[best_out] - sims[best_in] >= scope.min_lead:
            return self._make("out_of_scope", f"prototype: {self._texts[best_out]}", question)
        for name, patterns in self._cues:
            if in_scope and name == "out_of_scope":
                continue
            for pat in patterns:
                if pat.search(question):
                    return self._make(name, f"cue: {pat.pattern}", question)
        # Without a cue, a question is never taken for a figure or code request: those
        # intents decline answers, so they need the question's own words to say so.
        open_idx = [i for i, lab in enumerate(self._labels) if lab not in _CUE_ONLY and not (in_scope and lab == "out_of_scope")]
        best = max(open_idx, key=lambda i: sims[i])
        return self._make(self._labels[best], f"prototype: {self._texts[best]}", question)

"""Which accelerator a note sentence is about, which one it argues for, and whether it is a verdict.

The two-sided answer shape ("For GPUs:" / "For TPUs:") and the lint of composed answers
both need to know a sentence's side; the vocabulary (accelerator terms, verdict and
polarity cues, generic words) is data, in ``data/compose.toml``.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from knowledge.qa.lexical import tokenize

__all__ = ["ComposeVocabulary", "vocabulary", "side_of", "argues_for", "is_verdict", "mentions_domain"]

_FILE = Path(__file__).with_name("data") / "compose.toml"


class ComposeVocabulary(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    gpu_terms: str
    tpu_terms: str
    verdicts: list[str]
    for_gpu: list[str]
    for_tpu: list[str]
    neutral: list[str]
    positive: list[str]
    negative: list[str]
    definitions: list[str]
    domain_terms: str
    generic_words: list[str]
    comparison_words: list[str]
    trade_off: str
    fix_shapes: str
    both_sides: str


@dataclass(frozen=True)
class _Compiled:
    gpu: re.Pattern[str]
    tpu: re.Pattern[str]
    verdicts: tuple[re.Pattern[str], ...]
    for_gpu: tuple[re.Pattern[str], ...]
    for_tpu: tuple[re.Pattern[str], ...]
    neutral: tuple[re.Pattern[str], ...]
    positive: tuple[re.Pattern[str], ...]
    negative: tuple[re.Pattern[str], ...]
    definitions: tuple[re.Pattern[str], ...]
    domain: re.Pattern[str]
    generic: frozenset[str]
    comparing: frozenset[str]
    trade_off: re.Pattern[str]
    fix_shapes: re.Pattern[str]
    both_sides: re.Pattern[str]


@lru_cache(maxsize=1)
def vocabulary() -> _Compiled:
    v = ComposeVocabulary(**tomllib.loads(_FILE.read_text(encoding="utf-8")))

    def many(ps: list[str]) -> tuple[re.Pattern[str], ...]:
        return tuple(re.compile(p, re.I) for p in ps)

    return _Compiled(
        re.compile(v.gpu_terms, re.I), re.compile(v.tpu_terms, re.I), many(v.verdicts),
        many(v.for_gpu), many(v.for_tpu), many(v.neutral), many(v.positive),
        many(v.negative), many(v.definitions), re.compile(v.domain_terms, re.I),
        frozenset(tokenize(" ".join(v.generic_words))), frozenset(tokenize(" ".join(v.comparison_words))),
        re.compile(v.trade_off, re.I), re.compile(v.fix_shapes, re.I), re.compile(v.both_sides, re.I),
    )


def side_of(sentence: str) -> str | None:
    """The accelerator a sentence is about: the one it names first ('gpu', 'tpu' or None)."""
    voc = vocabulary()
    g, t = voc.gpu.search(sentence), voc.tpu.search(sentence)
    if g and (not t or g.start() < t.start()):
        return "gpu"
    return "tpu" if t else None


def argues_for(sentence: str) -> str | None:
    """Which accelerator a sentence argues for: 'gpu', 'tpu' or None.

    Explicit recommendations (``for_gpu`` / ``for_tpu`` in the data) decide first; a
    sentence weighing both sides argues for neither; otherwise it argues for its subject
    when it speaks well of it and for the other one when it speaks against it.
    """
    voc = vocabulary()
    if any(p.search(sentence) for p in voc.neutral):
        return None
    gpu = any(p.search(sentence) for p in voc.for_gpu)
    tpu = any(p.search(sentence) for p in voc.for_tpu)
    if gpu != tpu:
        return "gpu" if gpu else "tpu"
    subject = side_of(sentence)
    if subject is None:
        return None
    pos = sum(len(p.findall(sentence)) for p in voc.positive)
    neg = sum(len(p.findall(sentence)) for p in voc.negative)
    if pos == neg:
        return None
    other = "tpu" if subject == "gpu" else "gpu"
    return subject if pos > neg else other


def is_verdict(sentence: str) -> bool:
    """A sentence that says which accelerator to pick, or what the choice depends on."""
    voc = vocabulary()
    names = voc.gpu.search(sentence) or voc.tpu.search(sentence) or "depends on" in sentence.lower()
    return bool(names) and any(p.search(sentence) for p in voc.verdicts)


def mentions_domain(question: str) -> bool:
    return bool(vocabulary().domain.search(question))

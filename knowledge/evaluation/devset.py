"""The labelled dev set and its deterministic tuning / test split.

Each question carries its domain (in or out), its category (one-fact, why, comparison,
situational, slack-style, typo, the seed's FAQ questions; out of scope, near-domain
figures, code requests, prompt injection, the seed's ad noise), the chunks that answer
it and key terms a right answer contains. The split is by a hash of the id, so it never
depends on file order and a question never changes half: thresholds are calibrated on
the tuning half only, and the CI floors judge the test half.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = ["EVAL_DIR", "DevItem", "Half", "load_dev_set", "split", "halves", "stratified_halves", "IN_CATEGORIES", "OUT_CATEGORIES"]

#: The dev set and floors, package data beside this module.
EVAL_DIR = Path(__file__).resolve().parent / "data"

IN_CATEGORIES = ("fact", "why", "how", "comparison", "situational", "slack", "typo", "seed_faq", "multi_part", "does_matter")
OUT_CATEGORIES = ("out_of_scope", "near_figure", "code", "injection", "seed_noise")
Half = Literal["tune", "test"]


class DevItem(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    question: str
    domain: Literal["in", "out"]
    category: Literal[
        "fact", "why", "how", "comparison", "situational", "slack", "typo", "seed_faq",
        "out_of_scope", "near_figure", "code", "injection", "seed_noise", "multi_part", "does_matter",
    ]
    relevant: list[str] = []
    terms: list[str] = []
    #: for a multi-part question, the key terms of each part (every part must be answered)
    parts: list[list[str]] = []


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


def stratified_halves(entries: list[tuple[str, str, str]]) -> dict[str, Half]:
    """(id, stratum, text) -> {id: half}: within each stratum, entries sorted by a hash of
    id and text alternate tune / test.

    Stratifying keeps both halves alike (each has its share of every kind); the hash keeps
    the split independent of file order and of anything the engine does. Shared by every
    labelled set (the dev set here, the phrasings in :mod:`knowledge.evaluation.extraction`).
    """
    out: dict[str, Half] = {}
    for stratum in sorted({e[1] for e in entries}):
        mine = [e for e in entries if e[1] == stratum]
        ordered = sorted(mine, key=lambda e: hashlib.sha256(f"{e[0]}|{e[2]}".encode()).hexdigest())
        for n, entry in enumerate(ordered):
            out[entry[0]] = "tune" if n % 2 == 0 else "test"
    return out


def halves(items: list[DevItem]) -> dict[str, Half]:
    """id -> half, stratified by category (see :func:`stratified_halves`)."""
    return stratified_halves([(i.id, i.category, i.question) for i in items])


def split(items: list[DevItem]) -> tuple[list[DevItem], list[DevItem]]:
    """(tuning half, test half), each in file order."""
    h = halves(items)
    return [i for i in items if h[i.id] == "tune"], [i for i in items if h[i.id] == "test"]

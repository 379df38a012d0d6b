"""Cleaning scraped text: boilerplate lines, testimonials and repeated blocks.

Scraped pages repeat whole blocks (a testimonial carousel rendered four times) and
carry widget debris (counts, handles, nav). Indexing that noise would let an
out-of-domain question ("what do users say about the app?") retrieve it, so it is
dropped before chunking. The patterns are data (``boilerplate.toml``).
"""

from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, field_validator

from indexer.sources import Block, Page, Source

__all__ = ["CleanStats", "clean_source", "BoilerplateRule", "load_rules"]

_RULES_FILE = Path(__file__).with_name("boilerplate.toml")
_QUOTED = re.compile(r'^["“].*["”]$', re.S)
_WORD = re.compile(r"\w+")


class BoilerplateRule(BaseModel):
    id: str
    why: str
    pattern: str
    max_words: int | None = None

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, v: str) -> str:
        re.compile(v)
        return v

    def matches(self, text: str) -> bool:
        if self.max_words is not None and len(text.split()) > self.max_words:
            return False
        return re.match(self.pattern, text, re.I) is not None


class CardRule(BaseModel):
    id: str
    why: str
    start: str
    end: str
    max_blocks: int = 5

    @field_validator("start", "end")
    @classmethod
    def _compiles(cls, v: str) -> str:
        re.compile(v)
        return v


class Rules(BaseModel):
    rule: list[BoilerplateRule]
    card: list[CardRule] = []


class CleanStats(BaseModel):
    kept: int = 0
    boilerplate: int = 0
    duplicates: int = 0
    testimonials: int = 0
    fragments: int = 0
    cards: int = 0


@lru_cache(maxsize=1)
def load_rules() -> Rules:
    return Rules(**tomllib.loads(_RULES_FILE.read_text(encoding="utf-8")))


def _card_end(blocks: list[Block], i: int, rules: Rules) -> int:
    """Index just past a promo card starting at ``i``, or ``i`` when no card starts there."""
    text = " ".join(blocks[i].text.split())
    for card in rules.card:
        if not re.match(card.start, text, re.I):
            continue
        for j in range(i + 1, min(len(blocks), i + card.max_blocks)):
            if re.match(card.end, " ".join(blocks[j].text.split()), re.I):
                return j + 1
    return i


def _fingerprint(text: str) -> tuple[str, frozenset[tuple[str, ...]]]:
    words = _WORD.findall(text.lower())
    shingles = frozenset(tuple(words[i : i + 3]) for i in range(max(1, len(words) - 2)))
    return " ".join(words), shingles


def _near_duplicate(a: frozenset, b: frozenset, threshold: float) -> bool:
    if not a or not b:
        return False
    inter = len(a & b)
    return inter / len(a | b) >= threshold


def clean_source(source: Source, *, near_dup_threshold: float = 0.9) -> tuple[Source, CleanStats]:
    """Return a cleaned copy of ``source`` and what was dropped.

    Markdown notes are written by us, so only exact/near duplicates are removed there;
    plain-text pages (scrapes) also lose boilerplate, testimonials and nav fragments.
    """
    rules = load_rules()
    stats = CleanStats()
    scraped = source.kind == "text"
    seen_exact: set[str] = set()
    seen_shingles: list[frozenset] = []
    pages: list[Page] = []
    for page in source.pages:
        blocks = page.blocks
        kept: list[Block] = []
        skip_next_handle = False
        skip_until = 0
        for i, block in enumerate(blocks):
            if i < skip_until:
                continue
            text = " ".join(block.text.split())
            if scraped:
                end = _card_end(blocks, i, rules)
                if end > i:
                    stats.cards += 1
                    skip_until = end
                    continue
            if scraped and skip_next_handle and text.startswith("@"):
                stats.testimonials += 1
                skip_next_handle = False
                continue
            skip_next_handle = False
            if scraped and any(r.matches(text) for r in rules.rule):
                stats.boilerplate += 1
                continue
            if scraped and _QUOTED.match(text):
                # A quote followed by an attribution is a testimonial, not knowledge.
                nxt = blocks[i + 1].text.strip() if i + 1 < len(blocks) else ""
                if nxt.startswith("@") or nxt.startswith("—") or nxt.startswith("- "):
                    stats.testimonials += 1
                    skip_next_handle = True
                    continue
            if scraped and len(text.split()) < 8 and not re.search(r"[.?!]$", text):
                stats.fragments += 1
                continue
            if block.kind in ("paragraph", "item"):
                exact, shingles = _fingerprint(text)
                if exact in seen_exact or any(
                    _near_duplicate(shingles, s, near_dup_threshold) for s in seen_shingles
                ):
                    stats.duplicates += 1
                    continue
                seen_exact.add(exact)
                seen_shingles.append(shingles)
            kept.append(block.model_copy(update={"text": text}))
            stats.kept += 1
        if any(b.kind in ("paragraph", "item") for b in kept):
            pages.append(Page(number=page.number, blocks=kept))
    return source.model_copy(update={"pages": pages}), stats

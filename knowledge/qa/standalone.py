"""Whether a sentence stands alone: it names its subject and leans on no other sentence.

An extractive answer quotes sentences out of their paragraphs, so a sentence that opens
with "That requirement..." or "It saves..." reads as nonsense once quoted alone. The
openers and the meta phrases (sentences about the notes rather than the hardware) are
data, in ``data/standalone.toml``, shared by the source lint, the composer and the
answer lint of the eval.
"""

from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["StandaloneRules", "standalone_rules", "dangling_opener", "meta_phrase"]

_FILE = Path(__file__).with_name("data") / "standalone.toml"


class StandaloneRules(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    openers: list[str] = Field(min_length=1)
    asides: list[str] = []
    meta_phrases: list[str] = []

    def opener_pattern(self) -> re.Pattern[str]:
        """An opener at the start, or an aside set off by commas within the first few words."""
        words = sorted((re.escape(o) for o in self.openers), key=len, reverse=True)
        opener = r"^[\"'(]*(" + "|".join(words) + r")\b(?![-'])"
        if not self.asides:
            return re.compile(opener, re.I)
        asides = sorted((re.escape(a) for a in self.asides), key=len, reverse=True)
        aside = r"^[^,;:.]{1,40},\s*(" + "|".join(asides) + r")\s*,"
        return re.compile(f"(?:{opener})|(?:{aside})", re.I)


@lru_cache(maxsize=1)
def standalone_rules() -> StandaloneRules:
    return StandaloneRules(**tomllib.loads(_FILE.read_text(encoding="utf-8")))


@lru_cache(maxsize=1)
def _opener_re() -> re.Pattern[str]:
    return standalone_rules().opener_pattern()


def dangling_opener(sentence: str) -> str | None:
    """The opener (or the aside after its first words) that makes ``sentence`` lean on another
    sentence, or None."""
    m = _opener_re().match(sentence.strip())
    return next((g for g in m.groups() if g), None) if m else None


def meta_phrase(sentence: str) -> str | None:
    """The phrase that makes ``sentence`` about the notes themselves, or None."""
    low = sentence.lower()
    return next((p for p in standalone_rules().meta_phrases if p in low), None)

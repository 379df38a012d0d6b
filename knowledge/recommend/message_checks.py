"""Cheap checks on a message before and after extraction: language, shape, size.

Why here and not in the extractor: they decide whether a message should be read at all
("Wir trainieren ..." is not guessed at; "1234 5678" has nothing to read) and how to explain
what was done with it (a 20,000-character paste is read in part, and says so). Every
threshold and word list is data (``message_checks.toml``, validated with pydantic); nothing
here loads a model, so the checks cost microseconds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, field_validator

from common.validation import Regex, load_rule_file

__all__ = [
    "CHECKS_FILE", "MessageChecks", "load_checks", "language_of", "message_language", "shape_of", "is_correction",
    "cloud_names", "CloudName", "corrects_itself", "NOT_ENGLISH",
]

#: The reply to a message not in English (said in English: nothing guessed, the intake offered).
NOT_ENGLISH = ("I read English only, so I have not guessed at this message. "
               "Please write it in English, or answer the short intake instead.")

CHECKS_FILE = Path(__file__).resolve().parent / "message_checks.toml"
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")

Shape = Literal["words", "no_words", "config"]


class Limits(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    max_chars: int = Field(ge=200)
    max_clauses: int = Field(ge=1, le=200)
    many_clouds: int = Field(ge=2)
    #: up to this many clouds named plainly (none of them planned, past or someone else's) are
    #: read as a multi-cloud team; more than that reads like a list of options or credits, and is asked
    multi_cloud_up_to: int = Field(ge=2)


class Language(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    max_non_ascii_letters: float = Field(gt=0.0, le=1.0)
    min_foreign_words: int = Field(ge=1)
    foreign_ratio: float = Field(ge=1.0)
    english: frozenset[str] = Field(min_length=10)
    other: frozenset[str] = Field(min_length=10)

    @field_validator("other")
    @classmethod
    def _disjoint(cls, other: frozenset[str], info: object) -> frozenset[str]:
        english = getattr(info, "data", {}).get("english", frozenset())
        both = sorted(other & english)
        if both:
            raise ValueError(f"words listed as both English and not: {', '.join(both)}")
        return other


class ConfigShape(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    min_lines: int = Field(ge=2)
    share: float = Field(gt=0.0, le=1.0)
    line: Regex


class Clouds(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    #: provider -> the names people use for it
    providers: dict[str, Regex] = Field(min_length=2)


class Corrections(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    lead: Regex
    #: words by which a message takes back what it said a moment before ("..., actually no, ...",
    #: "AWS, sorry, I mean Azure"): which of two things it named is the team's is then a question
    within: Regex


class MessageChecks(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    limits: Limits
    language: Language
    config: ConfigShape
    clouds: Clouds
    corrections: Corrections


@lru_cache(maxsize=4)
def load_checks(path: Path = CHECKS_FILE) -> MessageChecks:
    """Parse and validate once per process; a broken file is a one-line RuleError."""
    return load_rule_file(path, MessageChecks)


#: Room for every pattern of the checks file: the cloud providers alone are about twenty, and a
#: cache smaller than them evicted each one before the next message read it.
@lru_cache(maxsize=64)
def _rx(pattern: str, flags: int = re.IGNORECASE) -> re.Pattern[str]:
    return re.compile(pattern, flags)


def language_of(text: str, checks: MessageChecks | None = None) -> Literal["en", "other", "unknown"]:
    """``other`` when the message is plainly not English; ``unknown`` when it has too few words to tell.

    Two signals: letters outside ASCII (Cyrillic, CJK, Greek ...), and function words of
    other Latin-script languages outnumbering English ones. Jargon ("JAX GCP 256 chips")
    has neither, so it counts as English: a false "not English" costs more than a miss.
    """
    lang = (checks or load_checks()).language
    letters = [c for c in text if c.isalpha()]
    if len(letters) < 2:
        return "unknown"
    non_ascii = sum(1 for c in letters if not c.isascii())
    if non_ascii / len(letters) > lang.max_non_ascii_letters:
        return "other"
    words = [w.lower() for w in _WORD.findall(text)]
    english = sum(1 for w in words if w in lang.english)
    foreign = sum(1 for w in words if w in lang.other)
    if foreign >= lang.min_foreign_words and foreign >= lang.foreign_ratio * max(english, 1):
        return "other"
    return "en"


def shape_of(text: str, checks: MessageChecks | None = None) -> Shape:
    """``no_words`` (numbers, emoji, symbols only), ``config`` (pasted YAML/JSON), or ``words``."""
    c = (checks or load_checks()).config
    if len(_WORD.findall(text)) == 0 or sum(1 for ch in text if ch.isalpha()) < 2:
        return "no_words"
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) >= c.min_lines:
        keyed = sum(1 for line in lines if _rx(c.line, 0).match(line))
        if keyed / len(lines) >= c.share:
            return "config"
    stripped = text.strip()
    if stripped[:1] in "{[" and stripped[-1:] in "}]" and re.search(r'"\s*:', stripped):
        return "config"
    return "words"


def is_correction(text: str, checks: MessageChecks | None = None) -> bool:
    """Does the message open like a correction ("no, we're on Azure", "actually we use JAX")?"""
    return _rx((checks or load_checks()).corrections.lead).search(text) is not None


class CloudName(NamedTuple):
    """One cloud a message names: the provider (a key of ``[clouds.providers]``) and its first mention."""

    provider: str
    name: str
    start: int
    end: int


def cloud_names(
    text: str, checks: MessageChecks | None = None, *, unsaid: Sequence[tuple[int, int]] = (),
) -> list[CloudName]:
    """The distinct clouds a message names, each by the first name it used for it, in order.

    ``unsaid``: spans whose names are not clouds the team says it is on now ("not on GCP", "we
    used to be on Azure", a clause the modifier gate read as planned or someone else's)."""
    found: list[CloudName] = []
    for provider, pattern in (checks or load_checks()).clouds.providers.items():
        said = [m for m in _rx(pattern).finditer(text) if not any(start <= m.start() < end for start, end in unsaid)]
        if said:
            name = re.sub(r"[\s-]+", " ", said[0].group(0).lower())
            found.append(CloudName(provider, name, said[0].start(), said[0].end()))
    return sorted(found, key=lambda c: c.start)


def corrects_itself(text: str, checks: MessageChecks | None = None) -> bool:
    """Does the message take back something it said ("we're on AWS, sorry, I mean Azure")?"""
    return _rx((checks or load_checks()).corrections.within).search(text) is not None


def message_language(text: str, checks: MessageChecks | None = None) -> Literal["en", "other"]:
    """What :func:`knowledge.recommend.reading.read_message` records as the message's language,
    without reading what it says about the team: a one-off question checks this first and is read
    in full only when its answer needs the team's situation. It lives here, beside the checks, so
    that check imports neither the vocabulary nor the profile models (a cold question's imports)."""
    checks = checks or load_checks()
    text = (text or "")[: checks.limits.max_chars]
    if shape_of(text, checks) == "no_words":
        return "en"  # not read at all, but not for its language
    return "other" if language_of(text, checks) == "other" else "en"

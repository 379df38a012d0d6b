"""A small, deterministic sentence splitter.

The chunker and the extractive answerer must agree on sentence boundaries: an answer
sentence is only verifiable as a verbatim substring of its chunk if both sides split the
same way. A regex splitter that knows common abbreviations is enough for English notes
and needs no downloaded data (NLTK's punkt would have to be fetched at run time).
"""

from __future__ import annotations

import re

__all__ = ["split_sentences", "normalize_ws", "word_count"]

# Tokens that end with a period but do not end a sentence.
_ABBREVIATIONS = frozenset(
    ["e.g", "i.e", "etc", "vs", "cf", "al", "approx", "dr", "mr", "mrs", "ms", "prof", "inc", "ltd", "co", "corp", "fig", "eq", "no", "vol", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "u.s", "u.k", "a.m", "p.m"]
)

# A candidate boundary: terminal punctuation, optional closing quotes/brackets, whitespace,
# then something that can start a sentence.
_BOUNDARY = re.compile(r"([.!?]+[\"'”’)\]]*)\s+(?=[\"'“‘(\[]?[A-Z0-9])")
_WS = re.compile(r"\s+")


def normalize_ws(text: str) -> str:
    """Collapse every run of whitespace to one space; the canonical form for substring checks."""
    return _WS.sub(" ", text).strip()


def word_count(text: str) -> int:
    return len(text.split())


def _is_abbreviation(before: str) -> bool:
    token = before.rsplit(None, 1)[-1] if before.strip() else ""
    token = token.lstrip("\"'“‘([").rstrip(".").lower()
    if token in _ABBREVIATIONS:
        return True
    # Single initials such as "J." in "J. Smith".
    return len(token) == 1 and token.isalpha()


def split_sentences(text: str) -> list[str]:
    """Split one paragraph into sentences, whitespace-normalized, never empty."""
    text = normalize_ws(text)
    if not text:
        return []
    out: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        end = match.end(1)
        candidate = text[start:end]
        if match.group(1).startswith(".") and _is_abbreviation(text[start : match.start(1)]):
            continue
        if candidate.strip():
            out.append(candidate.strip())
        start = match.end()
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return out

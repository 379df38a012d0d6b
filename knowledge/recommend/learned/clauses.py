"""Cutting a message into clauses, the unit the learned heads read.

A message states several things ("we're on AWS, 8 H100s. the model changes weekly but we
have no time to tune"); one embedding of the whole message blurs them, while one per clause
keeps each statement close to the labelled clauses the heads were trained on (one clause or
one short sentence each, see ``data/clauses_*.jsonl``). The cut is deliberately simple and
predictable: sentence ends, semicolons, new lines and bullets, and contrast words ("but",
"though", "whereas") that usually join two statements about different things. A long
remainder is cut again at commas, so a run-on message does not become one vague vector.
A question asked as a tail after a statement ("training on GKE with 8 GPUs on one node, is a
TPU worth a shot?") is its own clause: the statement before it is not asked
(``knowledge.recommend.context.asking_tail``).

Bounds keep bad input cheap: at most :data:`MAX_CLAUSES` clauses of at most
:data:`MAX_CLAUSE_CHARS` characters each are returned, and clauses with no letters
("12345", "🙂🙂") are skipped: there is nothing in them to read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from knowledge.recommend.context import asking_tail

__all__ = ["Clause", "clause_at", "split_clauses", "MAX_CLAUSES", "MAX_CLAUSE_CHARS"]

#: More clauses than any real Slack message has; a pasted document is read up to here.
MAX_CLAUSES = 48
MAX_CLAUSE_CHARS = 300
#: A piece longer than this (in words) is cut again at its commas.
LONG_WORDS = 22

#: Sentence ends (a dot inside "2.3", "tf.keras" or "e.g." followed by a letter does not end one),
#: semicolons, new lines, bullets.
_HARD = re.compile(r"[!?]+(?=\s|$)|\.(?=\s|$)|[;\n\u2022]+|\s[-*]\s(?=\w)")
#: Contrast words joining two statements: the cut is made before the word.
_SOFT = re.compile(r"\s(?=(?:but|though|although|whereas|however|except that)\b)|\s[\u2013\u2014]\s", re.IGNORECASE)
_COMMA = re.compile(r",\s")
_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)


@dataclass(frozen=True)
class Clause:
    """One clause: its text and where it sits in the message (so evidence can point back)."""

    text: str
    start: int
    end: int


def _cut(text: str, start: int, end: int, pattern: re.Pattern[str]) -> list[tuple[int, int]]:
    pieces, at = [], start
    for m in pattern.finditer(text, start, end):
        pieces.append((at, m.start()))
        at = m.end()
    pieces.append((at, end))
    return pieces


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and (text[start].isspace() or text[start] in ",:-*\u2022>"):
        start += 1
    while end > start and (text[end - 1].isspace() or text[end - 1] in ",:-"):
        end -= 1
    return start, end


def split_clauses(text: str) -> list[Clause]:
    """The message's clauses, in order, with their spans; small talk included (the heads say "not stated")."""
    out: list[Clause] = []
    for hs, he in _cut(text, 0, len(text), _HARD):
        tail = asking_tail(text[hs:he]) if text[he:he + 1] == "?" else None
        at = hs + tail if tail else None  # a tail at the very start leaves the piece whole
        pieces_of = _cut(text, hs, at, _SOFT) + [(at, he)] if at is not None else _cut(text, hs, he, _SOFT)
        for ss, se in pieces_of:
            pieces = [(ss, se)]
            if len(text[ss:se].split()) > LONG_WORDS:
                pieces = _cut(text, ss, se, _COMMA)
            for ps, pe in pieces:
                s, e = _trim(text, ps, pe)
                e = min(e, s + MAX_CLAUSE_CHARS)
                if e > s and _LETTER.search(text, s, e):
                    out.append(Clause(text=text[s:e], start=s, end=e))
                if len(out) >= MAX_CLAUSES:
                    return out
    return out


def clause_at(clauses: list[Clause], at: int) -> int | None:
    """The index of the clause holding character ``at`` of the message, or None (between clauses)."""
    return next((i for i, c in enumerate(clauses) if c.start <= at < c.end), None)

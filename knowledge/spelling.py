"""Misspelt vocabulary words, read as the words they misspell before the rules run.

Shared by the message reader (the recommend vocabulary, the default) and the ask-type cues of
questions (``knowledge.qa.asks`` passes ``asks.toml``), hence it lives beside both.

Why: about one message in seven is written in a hurry ("finetunning a 7B llama on a singel
4090", "locking down the archtecture", "all pytroch now"), and the rules' patterns are exact
words, so a single slip hid a field the message states plainly (fm53-02, fm53-23). A pattern
per misspelling is the treadmill this project avoids; one edit of distance is what a slip is.

How: a word is respelt only when all of these hold, so that a word spelt right is never moved:

* it is a run of lower-case letters at least :data:`MIN_LETTERS` long (a capital marks a name:
  "Equinix" is a data centre, not the JAX library Equinox; "BERTs" are models), and neither a
  word of the rules' vocabulary nor a word of the knowledge notes (the words the domain is
  written in);
* exactly one vocabulary word is within one edit of it (Damerau-Levenshtein: a swapped pair of
  letters is one slip, "singel"), by rapidfuzz;
* it is not an English word either (pyspellchecker's word list, loaded only when a word gets this
  far): "locking" is one edit from "looking" and means something else.

The vocabulary's words are read off its own patterns (letter runs of its regular expressions),
so the list follows the vocabulary as it grows. The reading is done on the respelt text and its
spans are mapped back (:meth:`Respelling.restore`): every field still shows the user's own words.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from knowledge.paths import SOURCES_DIR

if TYPE_CHECKING:  # pragma: no cover
    from knowledge.recommend.extraction import Extraction

__all__ = ["MIN_LETTERS", "Respelling", "respell", "lexicon", "notes_files"]

#: Shorter words are left alone: one edit turns too many short words into other words.
MIN_LETTERS = 5
_VOCABULARY_FILES = (Path(__file__).resolve().parent / "recommend" / "vocabulary.toml",)
_NOTES_DIR = SOURCES_DIR
#: A regular expression's escapes (\b, \s, \w, \d ...) are not letters of a word.
_ESCAPE = re.compile(r"\\[A-Za-z]")
_LETTERS = re.compile(rf"[a-z]{{{MIN_LETTERS},}}")
_WORD = re.compile(rf"(?<![A-Za-z])[a-z]{{{MIN_LETTERS},}}(?![A-Za-z])")


@lru_cache(maxsize=1)
def notes_files() -> tuple[Path, ...]:
    """The shipped notes, as ``files`` for :func:`respell`: a question's slips are respelt to the
    words the domain is written in (the out-of-domain gate reads it so)."""
    return tuple(sorted(_NOTES_DIR.glob("*.md")))


@lru_cache(maxsize=4)
def lexicon(files: tuple[Path, ...] = _VOCABULARY_FILES) -> tuple[tuple[str, ...], frozenset[str]]:
    """(the vocabulary's words, every known word): the first are what a slip is respelt to.

    ``files``: the data files whose patterns give the vocabulary (the recommend vocabulary by
    default; the question side passes its ask-type cues, so "shuld we go tpu" asks for a choice)."""
    vocab: set[str] = set()
    for path in files:
        vocab.update(_LETTERS.findall(_ESCAPE.sub(" ", path.read_text(encoding="utf-8").lower())))
    known = set(vocab)
    for note in sorted(_NOTES_DIR.glob("*.md")):
        known.update(_LETTERS.findall(note.read_text(encoding="utf-8").lower()))
    return tuple(sorted(vocab)), frozenset(known)


@dataclass(frozen=True)
class Respelling:
    """A text with its slips respelt, and the replacements that map positions back."""

    original: str
    text: str
    #: (start, end) in ``original`` and (start, end) in ``text`` of each replaced word, in order
    swaps: tuple[tuple[int, int, int, int], ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.swaps)

    def position(self, at: int, *, end: bool = False) -> int:
        """A position in the respelt text as a position in the original (inside a swapped word:
        its start, or its end for the end of a span)."""
        i = bisect_right([s[2] for s in self.swaps], at) - 1
        if i < 0:
            return at
        o_start, o_end, n_start, n_end = self.swaps[i]
        if at >= n_end:
            return o_end + (at - n_end)
        return o_end if end and at > n_start else o_start

    def span(self, start: int, end: int) -> tuple[int, int]:
        return self.position(start), self.position(end, end=True)

    def restore(self, out: "Extraction") -> "Extraction":
        """The reading of the respelt text with every span and quoted word the user's own."""
        if not self.changed:
            return out
        for name, ev in list(out.fields.items()):
            s, e = self.span(*ev.span)
            out.fields[name] = ev.model_copy(update={"span": (s, e), "evidence": self.original[s:e]})
        out.confirmations = [
            c.model_copy(update={"span": self.span(*c.span), "evidence": self.original[slice(*self.span(*c.span))]})
            for c in out.confirmations
        ]
        out.dropped = [(f, *self.span(s, e)) for f, s, e in out.dropped]
        out.doubted = [(f, *self.span(s, e)) for f, s, e in out.doubted]
        out.denied = [(f, v, self.position(s)) for f, v, s in out.denied]
        out.conflicts = [(f, v, *self.span(s, e), c) for f, v, s, e, c in out.conflicts]
        out.stated = [(f, v, *self.span(s, e), c) for f, v, s, e, c in out.stated]
        return out  # (``modified`` is the learned reader's, set after this: the rules leave it None)


def _nearest(word: str, vocab: Sequence[str]) -> str | None:
    """The one vocabulary word within one edit of ``word``, or None (none, or a tie)."""
    from rapidfuzz import process
    from rapidfuzz.distance import DamerauLevenshtein

    hits = process.extract(word, vocab, scorer=DamerauLevenshtein.distance, score_cutoff=1, limit=2)
    return hits[0][0] if len(hits) == 1 else None


@lru_cache(maxsize=1)
def _english() -> frozenset[str]:
    from spellchecker import SpellChecker

    return frozenset(SpellChecker(language="en").word_frequency.dictionary)


@lru_cache(maxsize=4096)
def _respelt(word: str, files: tuple[Path, ...]) -> str | None:
    vocab, known = lexicon(files)
    if word in known:
        return None
    fixed = _nearest(word, vocab)
    return None if fixed is None or word in _english() else fixed


def respell(text: str, files: tuple[Path, ...] = _VOCABULARY_FILES) -> Respelling:
    """``text`` with each slip of a vocabulary word respelt (see the module's docstring); the
    vocabulary is read off ``files``."""
    parts: list[str] = []
    swaps: list[tuple[int, int, int, int]] = []
    last = 0
    shift = 0
    for m in _WORD.finditer(text):
        fixed = _respelt(m.group(0), files)
        if fixed is None:
            continue
        parts.append(text[last:m.start()])
        n_start = m.start() + shift
        parts.append(fixed)
        swaps.append((m.start(), m.end(), n_start, n_start + len(fixed)))
        shift += len(fixed) - (m.end() - m.start())
        last = m.end()
    if not swaps:
        return Respelling(text, text)
    parts.append(text[last:])
    return Respelling(text, "".join(parts), tuple(swaps))


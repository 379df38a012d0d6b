"""Curated FAQ answers: when a user asks a question the FAQ already answers, say so.

A FAQ source (front matter ``type: faq``) holds questions a person has answered
carefully, each resting on note chunks named by a ``<!-- cites: ... -->`` line. For
those questions a curated answer beats one stitched together from note sentences, so
the engine checks them first. Matching compares the user's question with the curated
*questions* (the FAQ headings), not with the answers: two questions asking the same
thing embed close together, while a question and an answer rarely do. The headings
are embedded at index time (the store's heading vectors), and matching reuses the
query vector the engine computed anyway, so a curated check costs one small matrix
product and loading costs nothing.

Each entry also carries other ways users ask it, as data (``data/faq_forms.toml``),
embedded once when the matcher is built. An entry answers when its closest form is
close enough (``[curated] min_similarity``) and stands out from the runner-up entry by
``min_margin``: a single absolute cut-off either misses verbatim questions worded a
little differently from the heading or lets a vague question ("gpu or tpu?") grab
whichever entry happens to be nearest. Both are calibrated on the tuning half of the
dev set. Otherwise the question goes down the normal hybrid path, which may still
quote FAQ sentences like any others.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from indexer.ondisk import Store, StoredChunk
from knowledge.qa.answers import Answer, AnswerSentence, Citation
from knowledge.qa.lexical import sentence_idf, sentence_words, tokenize
from knowledge.qa.params import CuratedParams

__all__ = ["CuratedEntry", "CuratedMatch", "CuratedMatcher", "cites_map", "NOTES_PREFIX", "FaqForms", "faq_forms"]

_FORMS_FILE = Path(__file__).with_name("data") / "faq_forms.toml"


class _FormEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    question: str
    forms: list[str] = Field(min_length=1)


class FaqForms(BaseModel):
    """Other question forms per FAQ heading."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    generic: list[str] = []
    #: phrases whose words are one topic though each alone is generic ("give up": "give" is generic)
    phrases: list[str] = []
    entry: list[_FormEntry]

    def by_question(self) -> dict[str, list[str]]:
        return {e.question: list(e.forms) for e in self.entry}


@lru_cache(maxsize=1)
def faq_forms() -> FaqForms:
    return FaqForms(**tomllib.loads(_FORMS_FILE.read_text(encoding="utf-8")))


class _Encoder(Protocol):
    def encode(self, texts: list[str]) -> np.ndarray: ...

#: Starts the line of an answer that points at the notes a curated answer rests on.
NOTES_PREFIX = "Based on the notes:"


@dataclass(frozen=True)
class CuratedEntry:
    """One FAQ question and the chunk(s) holding its answer (one, unless it was very long)."""

    question: str
    chunks: tuple[StoredChunk, ...]

    @property
    def chunk_id(self) -> str:
        return self.chunks[0].chunk_id

    @property
    def sentences(self) -> list[tuple[str, str]]:
        """(sentence, chunk id) in order, without the overlap a chunk split repeats."""
        out: list[tuple[str, str]] = []
        seen: set[str] = set()
        for chunk in self.chunks:
            for s in chunk.sentences:
                if s not in seen:
                    seen.add(s)
                    out.append((s, chunk.chunk_id))
        return out

    @property
    def cites(self) -> list[str]:
        out: list[str] = []
        for chunk in self.chunks:
            out.extend(c for c in chunk.cites if c not in out)
        return out


@dataclass(frozen=True)
class CuratedMatch:
    entry: CuratedEntry
    similarity: float  # best cosine of the user's question with the entry's heading or forms
    runner_up: float = -1.0  # the same for the next-closest entry

    @property
    def margin(self) -> float:
        return self.similarity - self.runner_up

    def clears(self, params: CuratedParams) -> bool:
        """Close enough, and clearly ahead of the runner-up: the two thresholds calibration tunes."""
        return self.similarity >= params.min_similarity and self.margin >= params.min_margin


def _paragraph(sentences: list[AnswerSentence]) -> str:
    """Sentences as written, each run from one chunk closed by that chunk's ``[chunk_id]`` marker."""
    parts: list[str] = []
    for i, s in enumerate(sentences):
        parts.append(s.text)
        if i + 1 == len(sentences) or sentences[i + 1].chunk_id != s.chunk_id:
            parts.append(f"[{s.chunk_id}]")
    return " ".join(parts)


def _entries(store: Store) -> list[CuratedEntry]:
    """FAQ chunks grouped by entry: consecutive chunks of one source under one heading."""
    groups: list[list[StoredChunk]] = []
    for chunk in store.chunks:
        if chunk.source_type != "faq" or not chunk.heading_path:
            continue
        prev = groups[-1][-1] if groups else None
        if prev is not None and prev.source_id == chunk.source_id and prev.heading_path == chunk.heading_path:
            groups[-1].append(chunk)
        else:
            groups.append([chunk])
    return [CuratedEntry(question=g[0].heading_path[-1], chunks=tuple(g)) for g in groups]


def cites_map(store: Store) -> dict[str, set[str]]:
    """chunk id → the chunk ids it cites, for every chunk that cites any.

    The eval uses it so a curated chunk counts as relevant when it rests on a labelled
    note chunk: retrieving the FAQ entry about TPU costs is a hit for a cost question.
    """
    return {c.chunk_id: set(c.cites) for c in store.chunks if c.cites}


class CuratedMatcher:
    """The curated questions of one store: heading vectors from the index, forms embedded once."""

    def __init__(self, store: Store, embedder: _Encoder | None = None, forms: FaqForms | None = None) -> None:
        self.store = store
        self.entries = _entries(store)
        rows = [e.chunks[0].heading_row for e in self.entries]
        dim = store.chunk_vectors.shape[1]
        self.vectors = store.heading_vectors[rows] if rows else np.zeros((0, dim), dtype=np.float32)
        # One row per (entry, form): the heading itself, then the forms from data.
        owners = list(range(len(self.entries)))
        form_vectors = [self.vectors]
        data = forms or faq_forms()
        known = data.by_question() if embedder is not None else {}
        self._generic = set(tokenize(" ".join(data.generic)))
        self._phrases = [re.compile(p, re.I) for p in data.phrases]
        self._topics: list[set[str]] = []
        #: the words an entry is asked in: its question and its forms
        self._asked: list[set[str]] = []
        texts: list[str] = []
        for i, entry in enumerate(self.entries):
            words = self._words(entry.question)
            for form in known.get(entry.question, []):
                texts.append(form)
                owners.append(i)
                words |= self._words(form)
            self._topics.append(words - self._generic)
            self._asked.append(words)
        if texts and embedder is not None:
            form_vectors.append(np.asarray(embedder.encode(texts), dtype=np.float32))
        self._rows = np.concatenate(form_vectors) if self.entries else np.zeros((0, dim), dtype=np.float32)
        self._owner = np.asarray(owners[: len(self._rows)], dtype=np.int64)

    def __len__(self) -> int:
        return len(self.entries)

    def best(self, qvec: np.ndarray) -> CuratedMatch | None:
        """The closest entry (by its closest form) and the runner-up's similarity; None without a FAQ."""
        if not self.entries:
            return None
        sims = self._rows @ qvec
        per_entry = np.full(len(self.entries), -1.0, dtype=np.float32)
        np.maximum.at(per_entry, self._owner, sims)
        order = np.argsort(-per_entry, kind="stable")
        first = int(order[0])
        second = float(per_entry[order[1]]) if len(order) > 1 else -1.0
        return CuratedMatch(self.entries[first], float(per_entry[first]), second)

    def names_topic(self, question: str, entry: CuratedEntry) -> bool:
        """Whether the question shares a topic word (not a generic one) with the entry."""
        i = self.entries.index(entry)
        return bool((self._words(question) - self._generic) & self._topics[i])

    def _words(self, text: str) -> set[str]:
        """``text``'s tokens, each of the data's phrases it holds as one more ("give up" -> "giveup")."""
        return set(tokenize(text)) | {re.sub(r"\W+", "", m.group(0).lower()) for p in self._phrases for m in p.finditer(text)}

    def misses_rare_word(self, question: str, qvec: np.ndarray, entry: CuratedEntry, min_idf: float) -> bool:
        """Whether the question names a word the notes say in only a few sentences (inverse
        sentence frequency at least ``min_idf``) that the entry never says, and a sentence of the
        notes that says it is closer to the question than any of the entry's answer: "spot TPUs,
        what's the catch?" is about spot TPUs, which the general "what's the catch with TPUs?"
        entry does not cover and the spot sentence does. (A rare word said in passing, "natively",
        "clarify", has no closer sentence.)"""
        idf = sentence_idf(self.store)
        by_row = sentence_words(self.store)
        said = self._asked[self.entries.index(entry)].union(
            *(by_row[c.sentence_start + j] for c in entry.chunks for j in range(len(c.sentences))))
        rare = {t for t in tokenize(question) if idf.get(t, 0.0) >= min_idf and t not in said}
        if not rare:
            return False
        rows = [row for row, words in enumerate(by_row) if rare & words]
        return bool(rows) and float((self.store.sentence_vectors[rows] @ qvec).max()) > self.answer_similarity(qvec, entry)

    def answer_similarity(self, qvec: np.ndarray, entry: CuratedEntry) -> float:
        """The best cosine of the question with one of the entry's answer sentences."""
        best = -1.0
        for chunk in entry.chunks:
            vecs = self.store.sentence_vectors[chunk.sentence_start : chunk.sentence_start + len(chunk.sentences)]
            if len(vecs):
                best = max(best, float((vecs @ qvec).max()))
        return best

    def candidate(self, qvec: np.ndarray, params: CuratedParams, question: str | None = None) -> CuratedMatch | None:
        """The closest entry when it could answer the question at all, whatever the two thresholds
        of :meth:`CuratedMatch.clears`: (given the question's text) about a topic the question
        names, and answering it: one of its sentences must be close to the question too; else None."""
        best = self.best(qvec)
        if best is None:
            return None
        if question is not None and (
            not self.names_topic(question, best.entry) or self.misses_rare_word(question, qvec, best.entry, params.rare_word_idf)
        ):
            return None
        if self.answer_similarity(qvec, best.entry) < params.min_answer_similarity:
            return None
        return best

    def match(self, qvec: np.ndarray, params: CuratedParams, question: str | None = None) -> CuratedMatch | None:
        """The :meth:`candidate` when it also :meth:`~CuratedMatch.clears` the thresholds; else None."""
        best = self.best(qvec)
        if best is None or not best.clears(params):  # the cheap check first
            return None
        return self.candidate(qvec, params, question)

    def answer(
        self, question: str, match: CuratedMatch, qvec: np.ndarray, notices: list[str] | None = None,
        *, max_sentences: int | None = None, intent: str = "",
    ) -> Answer:
        """The curated answer, verbatim, citing its FAQ chunk and then the notes it rests on.

        Each sentence cites the FAQ chunk it is quoted from. The text is the entry as
        written, one paragraph with the FAQ chunk's marker at its end (a marker after every
        sentence of one hand-written paragraph would only repeat itself), then a line that
        points at the notes it rests on, so every citation is referenced in the text. The
        citations list the FAQ chunk first, then the note chunks its ``cites`` line names
        (labels from the store). Citation scores are the question's cosine with each
        chunk, as in hybrid answers. Entries are written answer first, so a tighter
        budget (``max_sentences``, from the question's intent) keeps the leading sentences.
        """
        by_id = self.store.by_id()
        pairs = match.entry.sentences[: max_sentences or None]
        sentences = [AnswerSentence(text=s, chunk_id=cid, role="curated") for s, cid in pairs]
        cited = [c.chunk_id for c in match.entry.chunks] + [c for c in match.entry.cites if c in by_id]
        citations = [self._citation(by_id[cid], qvec) for cid in dict.fromkeys(cited)]
        text = _paragraph(sentences)
        notes = [c.chunk_id for c in citations if c.chunk_id not in {x.chunk_id for x in match.entry.chunks}]
        if notes:
            text += "\n" + NOTES_PREFIX + " " + " ".join(f"[{cid}]" for cid in notes)
        return Answer(
            question=question,
            answer=text,
            declined=False,
            citations=citations,
            sentences=sentences,
            notices=list(notices or []),
            mode="curated",
            intent=intent,
        )

    def _citation(self, chunk: StoredChunk, qvec: np.ndarray) -> Citation:
        score = float(self.store.chunk_vectors[chunk.row] @ qvec)
        return Citation(label=chunk.label, chunk_id=chunk.chunk_id, source=chunk.file, pages=chunk.pages, score=round(score, 4))

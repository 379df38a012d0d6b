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

The cut-off is a calibrated parameter (``[curated] min_similarity`` in
``params.toml``, suggested by ``hwbot eval --calibrate``): below it the question goes
down the normal hybrid path, which may still quote FAQ sentences like any others.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from indexer.store import Store, StoredChunk
from knowledge.qa.models import Answer, AnswerSentence, Citation

__all__ = ["CuratedEntry", "CuratedMatch", "CuratedMatcher", "cites_map", "NOTES_PREFIX"]

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
    similarity: float  # cosine of the user's question and the curated question


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
    """The curated questions of one store, with their vectors from the index."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.entries = _entries(store)
        rows = [e.chunks[0].heading_row for e in self.entries]
        self.vectors = store.heading_vectors[rows] if rows else np.zeros((0, store.chunk_vectors.shape[1]), dtype=np.float32)

    def __len__(self) -> int:
        return len(self.entries)

    def best(self, qvec: np.ndarray) -> CuratedMatch | None:
        """The closest curated question, however far (None when there is no FAQ)."""
        if not self.entries:
            return None
        sims = self.vectors @ qvec
        i = int(np.argmax(sims))
        return CuratedMatch(self.entries[i], float(sims[i]))

    def match(self, qvec: np.ndarray, min_similarity: float) -> CuratedMatch | None:
        """The closest curated question if it is at least ``min_similarity`` away, else None."""
        best = self.best(qvec)
        return best if best is not None and best.similarity >= min_similarity else None

    def answer(self, question: str, match: CuratedMatch, qvec: np.ndarray, notices: list[str] | None = None) -> Answer:
        """The curated answer, verbatim, citing its FAQ chunk and then the notes it rests on.

        Each sentence cites the FAQ chunk it is quoted from. The text is the entry as
        written, one paragraph with the FAQ chunk's marker at its end (a marker after every
        sentence of one hand-written paragraph would only repeat itself), then a line that
        points at the notes it rests on, so every citation is referenced in the text. The
        citations list the FAQ chunk first, then the note chunks its ``cites`` line names
        (labels from the store). Citation scores are the question's cosine with each
        chunk, as in hybrid answers.
        """
        by_id = self.store.by_id()
        sentences = [AnswerSentence(text=s, chunk_id=cid, role="curated") for s, cid in match.entry.sentences]
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
        )

    def _citation(self, chunk: StoredChunk, qvec: np.ndarray) -> Citation:
        score = float(self.store.chunk_vectors[chunk.row] @ qvec)
        return Citation(label=chunk.label, chunk_id=chunk.chunk_id, source=chunk.file, pages=chunk.pages, score=round(score, 4))

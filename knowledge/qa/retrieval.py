"""Hybrid retrieval: dense (FAISS, cosine), BM25 (bm25s), question forms and the lead map over the same chunks, fused with RRF.

Dense search finds paraphrases ("keep the chip busy" ~ "utilization"); BM25 finds
exact terms the small model blurs ("Pallas", "tf.data"); the question forms of each
note sentence (:mod:`knowledge.qa.form_match`) find the chunk holding the sentence that
answers the question asked, matched question to question; the lead map
(:mod:`knowledge.qa.lead_map`, learned from the forms and the measured outside questions)
turns the question towards the sentence that answers it and ranks the chunks the other lists
found by it, which lifts the chunk of an answer that shares neither words nor topic with the
question ("what should we be worried about going in?" and the pitfalls of a first TPU move).
Each alone misses what the others catch, so all rank the same chunks and Reciprocal Rank
Fusion merges them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from indexer.ondisk import Store, StoredChunk
from knowledge.qa.bm25 import bm25s
from knowledge.qa.form_match import FormMatcher
from knowledge.qa.fusion import rrf
from knowledge.qa.lead_map import lead_direction, lead_map
from knowledge.qa.lexical import tokenize
from knowledge.qa.params import RetrievalParams

__all__ = ["Hit", "Retriever", "Mode", "Evidence"]

Mode = Literal["hybrid", "dense", "bm25"]


def _median(values: np.ndarray) -> float:
    """``np.median`` of a 1-D array, the same value: numpy's own checks the result for NaN through
    ``numpy.ma``, whose import (~5 ms) a cold ask would pay for this one number."""
    ordered = np.sort(values)
    k = len(ordered) // 2
    return float(ordered[k] if len(ordered) % 2 else (ordered[k - 1] + ordered[k]) / 2)


@dataclass(frozen=True)
class Hit:
    chunk: StoredChunk
    dense: float  # cosine of the question and the chunk
    bm25: float
    fused: float
    rank: int


@dataclass(frozen=True)
class Evidence:
    """Signals for abstention.

    ``top_dense`` is the best cosine of the question with any candidate chunk, any
    sentence of one, or its section heading: a precise question ("What is Pallas?")
    can match one sentence much better than the whole chunk around it, and a question
    about a topic ("Where are TPUs strongest?") matches the heading that names it.
    """

    top_chunk: float
    top_sentence: float
    median_dense: float
    top_bm25: float
    top_heading: float = -1.0
    #: sentence text -> the question's cosine with that sentence's closest question form
    form_scores: dict[str, float] = field(default_factory=dict)
    #: the sources of the closest chunk by meaning and of the best chunk by words (one entry
    #: when they agree): whose notes the question is about, for the out-of-domain gate
    lead_sources: tuple[str, ...] = ()

    @property
    def top_form(self) -> float:
        return max(self.form_scores.values(), default=-1.0)

    @property
    def top_dense(self) -> float:
        return max(self.top_chunk, self.top_sentence, self.top_heading)

    @property
    def margin(self) -> float:
        return self.top_chunk - self.median_dense


class Retriever:
    """Holds the store's vectors and a BM25 model built once from the same chunks."""

    def __init__(self, store: Store, params: RetrievalParams | None = None) -> None:
        self.store = store
        self.params = params or RetrievalParams()
        self._bm25 = bm25s.BM25()
        corpus_tokens = [tokenize(c.embed_text) or ["__empty__"] for c in store.chunks]
        self._bm25.index(corpus_tokens, show_progress=False)
        self.forms = FormMatcher(store)

    def _dense(self, qvec: np.ndarray) -> np.ndarray:
        # While the store holds an exact (flat) index, one matrix product scores every
        # chunk, which also yields the median the abstention margin needs. Once the corpus
        # is large enough for an approximate index, that index limits the work to ``depth``.
        if self.store.manifest.index_type == "flat":
            return self.store.chunk_vectors @ qvec
        n = self.store.chunk_vectors.shape[0]
        depth = min(self.params.depth, n)
        scores, ids = self.store.index.search(qvec[None, :].astype(np.float32), depth)
        out = np.full(n, -1.0, dtype=np.float32)
        out[ids[0][ids[0] >= 0]] = scores[0][ids[0] >= 0]
        return out

    def _best_sentences(self, vec: np.ndarray, candidates: Iterable[int]) -> dict[int, float]:
        """Each candidate chunk's best sentence cosine with ``vec`` (chunks without sentences left out):
        bounded work at any corpus size."""
        out: dict[int, float] = {}
        for i in candidates:
            c = self.store.chunks[i]
            vecs = self.store.sentence_vectors[c.sentence_start : c.sentence_start + len(c.sentences)]
            if len(vecs):
                out[i] = float((vecs @ vec).max())
        return out

    def _top_sentence(self, qvec: np.ndarray, candidates: list[int]) -> float:
        """Best sentence cosine within the dense candidates."""
        return max(self._best_sentences(qvec, candidates).values(), default=-1.0)

    def _top_heading(self, qvec: np.ndarray, candidates: list[int]) -> float:
        rows = sorted({self.store.chunks[i].heading_row for i in candidates} - {-1})
        if not rows:
            return -1.0
        return float((self.store.heading_vectors[rows] @ qvec).max())

    def _lead_sources(self, dense: np.ndarray, lexical: np.ndarray) -> tuple[str, ...]:
        """The sources of the best chunk by cosine and, when any word matched, by BM25."""
        best = [int(np.argmax(dense))] + ([int(np.argmax(lexical))] if float(lexical.max()) > 0 else [])
        return tuple(dict.fromkeys(self.store.chunks[i].source_id for i in best))

    def _bm25_scores(self, question: str) -> np.ndarray:
        tokens = tokenize(question)
        if not tokens:
            return np.zeros(len(self.store.chunks), dtype=np.float32)
        return np.asarray(self._bm25.get_scores(tokens), dtype=np.float32)

    def _turned(self, qvec: np.ndarray, candidates: set[int]) -> list[int]:
        """The ``candidates`` (chunks another list found), ranked by their best sentence's cosine with
        the question turned by the lead map; [] without a map. Only candidates are scored, so the
        cost stays that of a few dozen chunks on a corpus of any size."""
        w = lead_map()
        if w is None or not candidates or len(self.store.sentence_vectors) == 0:
            return []
        score = self._best_sentences(lead_direction(qvec, w), candidates)
        return sorted(score, key=lambda i: (-score[i], i))

    def _pin_form_chunk(self, order: list[int], by_form: np.ndarray, k: int) -> list[int]:
        """Keep the chunk whose sentence has the closest question form among the hits.

        Rank fusion flattens scores: a question that matches one sentence's form almost
        word for word ("which is easier to debug?") ranks that chunk first in the forms list
        only, and chunks that do well in all three lists crowd it out. A form this close is
        an answer to the ask, so its chunk takes the last place when it is missing.
        """
        best = int(np.argmax(by_form))
        if by_form[best] < self.params.form_pin or best in order:
            return order
        return order[: k - 1] + [best]

    def search(
        self, question: str, qvec: np.ndarray, *, mode: Mode = "hybrid", k: int | None = None, exclude_form: int | None = None
    ) -> tuple[list[Hit], Evidence]:
        """Rank chunks for a question; returns the top ``k`` hits and corpus-wide evidence
        (``exclude_form``: a form row left out of the forms signal, for fitting the lead model)."""
        k = k or self.params.top_chunks
        n = len(self.store.chunks)
        if n == 0:
            return [], Evidence(0.0, 0.0, 0.0, 0.0, 0.0)
        dense = self._dense(qvec)
        lexical = self._bm25_scores(question)
        form_scores = self.forms.sentence_scores(qvec, exclude_form)
        depth = min(self.params.depth, n)
        dense_rank = [int(i) for i in np.argsort(-dense, kind="stable")[:depth]]
        evidence = Evidence(
            top_chunk=float(dense.max()),
            top_sentence=self._top_sentence(qvec, dense_rank),
            median_dense=_median(dense[dense > -1.0]) if np.any(dense > -1.0) else 0.0,
            top_bm25=float(lexical.max()),
            top_heading=self._top_heading(qvec, dense_rank),
            form_scores=form_scores,
            lead_sources=self._lead_sources(dense, lexical),
        )
        bm25_rank = [int(i) for i in np.argsort(-lexical, kind="stable")[:depth] if lexical[i] > 0]
        if mode == "dense":
            fused = {i: float(dense[i]) for i in dense_rank}
        elif mode == "bm25":
            fused = {i: float(lexical[i]) for i in bm25_rank}
        else:
            by_form = self.forms.chunk_scores(form_scores)
            form_rank = [int(i) for i in np.argsort(-by_form, kind="stable")[:depth] if by_form[i] > -1.0]
            # the map reranks what the other lists found (each to ``depth``): it finds the chunk of
            # an answer among them that shares neither words nor topic with the question
            found = set(dense_rank) | set(bm25_rank) | set(form_rank)
            map_rank = self._turned(qvec, found)[:depth] if self.params.map_weight > 0 else []
            fused = rrf(
                [dense_rank, bm25_rank, form_rank, map_rank],
                k=self.params.rrf_k,
                weights=[self.params.dense_weight, self.params.bm25_weight, self.params.forms_weight, self.params.map_weight],
            )
        order = sorted(fused, key=lambda i: (-fused[i], i))[:k]
        if mode == "hybrid" and order:
            order = self._pin_form_chunk(order, by_form, k)
        hits = [
            Hit(chunk=self.store.chunks[i], dense=float(dense[i]), bm25=float(lexical[i]), fused=fused[i], rank=r)
            for r, i in enumerate(order)
        ]
        return hits, evidence

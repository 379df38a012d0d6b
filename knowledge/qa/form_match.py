"""Question-to-question matching over the note sentences' question forms.

Each note sentence carries the questions it answers (``knowledge/sources/forms``), embedded
by ``hwbot index`` and loaded with the store, so matching costs one matrix product with
the query vector the engine computed anyway: no form is encoded at query time.

Two uses:
- retrieval: chunks ranked by the best form of any of their sentences, a third ranking
  fused (RRF) with dense and BM25 (:mod:`knowledge.qa.retrieval`);
- answering: a sentence whose forms match the question is the sentence that answers its
  *ask*, where cosine with the sentence itself only finds its topic
  (:mod:`knowledge.qa.compose` adds the form score to a sentence's relevance).
"""

from __future__ import annotations

import numpy as np

from indexer.ondisk import Store

__all__ = ["FormMatcher"]


class FormMatcher:
    """The store's forms, grouped by the sentence they belong to."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.sentences: list[str] = [e.sentence for e in store.forms]
        self._no_lead = frozenset(e.sentence for e in store.forms if not e.lead)
        owner: list[int] = []
        for i, e in enumerate(store.forms):
            owner.extend([i] * len(e.forms))
        self._owner = np.asarray(owner, dtype=np.int64)
        n = store.form_vectors.shape[0]
        self.enabled = n > 0 and n == len(owner)
        # chunk row -> indexes into self.sentences, for the chunk ranking
        where = {s: i for i, s in enumerate(self.sentences)}
        self._chunk_sentences = [[where[s] for s in c.sentences if s in where] for c in store.chunks]

    def can_lead(self, sentence: str) -> bool:
        """False for a sentence its forms file marks ``lead = false`` (it leans on its predecessor)."""
        return sentence not in self._no_lead

    def sentence_scores(self, qvec: np.ndarray, exclude: int | None = None) -> dict[str, float]:
        """sentence text → cosine of the question with its closest form (sentences without forms absent).

        ``exclude`` is a form row left out: fitting the lead model asks each form as a question,
        and its own row would match it perfectly where an unseen question never does."""
        if not self.enabled:
            return {}
        sims = self.store.form_vectors @ qvec
        if exclude is not None:
            sims = sims.copy()
            sims[exclude] = -1.0
        best = np.full(len(self.sentences), -1.0, dtype=np.float32)
        np.maximum.at(best, self._owner, sims)
        return {s: float(best[i]) for i, s in enumerate(self.sentences) if best[i] > -1.0}

    def chunk_scores(self, scores: dict[str, float]) -> np.ndarray:
        """Per chunk row, the best form score of its sentences (-1 for a chunk with none)."""
        out = np.full(len(self.store.chunks), -1.0, dtype=np.float32)
        for row, idx in enumerate(self._chunk_sentences):
            vals = [scores.get(self.sentences[i], -1.0) for i in idx]
            if vals:
                out[row] = max(vals)
        return out

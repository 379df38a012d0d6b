"""The question-answering engine every front end shares.

``QAEngine.open`` makes sure the index exists and is fresh (building or updating it,
with a progress bar, when sources changed), loads it once, checks it was built with
this model, and builds BM25 over the same chunks. ``ask`` is then cheap: one query
embedding, two searches, and sentence scoring on precomputed vectors. Before the
searches, the same query vector is compared with the curated FAQ questions
(:mod:`knowledge.qa.curated`); a close match is answered from the FAQ entry.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from indexer.build import BuildReport, build_index, staleness
from indexer.embedder import Embedder
from indexer.query_encoder import QueryEncoder, open_query_encoder
from indexer.store import SourceEntry, Store, load_store
from knowledge.paths import SOURCES_DIR
from knowledge.qa.abstain import declined_answer, should_decline
from knowledge.qa.compose import compose, join_sentences
from knowledge.qa.curated import CuratedMatch, CuratedMatcher
from knowledge.qa.hygiene import EmptyQuestionError, clean_question
from knowledge.qa.models import Answer
from knowledge.qa.params import QAParams, load_params
from knowledge.qa.retrieval import Evidence, Hit, Mode, Retriever

__all__ = ["QAEngine", "ensure_index"]


def ensure_index(
    index_dir: Path,
    sources_dir: Path,
    embedder: Embedder,
    *,
    progress: bool | None = None,
    announce=None,
) -> BuildReport | None:
    """Build or update the index when it is missing or stale; None when already fresh.

    ``announce`` (a callable taking one line) tells the user why a build starts.
    """
    reason = staleness(index_dir, sources_dir)
    if reason is None:
        return None
    # build_index re-checks under the index lock, so a build another process just
    # finished is not repeated.
    if announce is not None:
        announce(f"Updating the index ({reason})…")
    return build_index(sources_dir, index_dir, embedder, progress=progress)


class QAEngine:
    """Cited extractive answers over one loaded index."""

    def __init__(self, store: Store, embedder: QueryEncoder, params: QAParams | None = None) -> None:
        self.store = store
        self.embedder = embedder
        self.params = params or load_params()
        self.retriever = Retriever(store, self.params.retrieval)
        self.curated = CuratedMatcher(store)

    @classmethod
    def open(
        cls,
        index_dir: Path,
        *,
        sources_dir: Path | None = None,
        embedder: Embedder | None = None,
        auto_build: bool = True,
        progress: bool | None = None,
        params: QAParams | None = None,
    ) -> "QAEngine":
        """``embedder`` given: it encodes queries too. Otherwise builds use sentence-transformers
        (loaded only if a build runs) and queries the ONNX encoder, or a noted fallback."""
        sources_dir = sources_dir or SOURCES_DIR
        if auto_build:
            ensure_index(
                index_dir,
                sources_dir,
                embedder or Embedder(),
                progress=progress,
                announce=lambda line: print(line, file=sys.stderr),
            )
        store = load_store(index_dir)
        encoder: QueryEncoder = embedder or open_query_encoder(store)
        store.check_model(encoder.model_id, encoder.dim, encoder.probe())
        return cls(store, encoder, params)

    @property
    def sources(self) -> list[SourceEntry]:
        return list(self.store.manifest.sources)

    def retrieve(
        self, question: str, *, mode: Mode = "hybrid", k: int | None = None, qvec: np.ndarray | None = None
    ) -> tuple[list[Hit], Evidence, np.ndarray]:
        """Ranked chunks for an already-clean question (used by ``ask`` and the eval harness).

        ``qvec`` is the question's embedding when the caller already has it.
        """
        if qvec is None:
            qvec = self.embedder.encode_one(question)
        hits, evidence = self.retriever.search(question, qvec, mode=mode, k=k)
        return hits, evidence, qvec

    def declines(self, evidence: Evidence, mode: Mode = "hybrid") -> bool:
        return should_decline(evidence, self.params.abstain, mode)

    def curated_match(self, qvec: np.ndarray, mode: Mode = "hybrid") -> CuratedMatch | None:
        """The curated FAQ entry that answers this question, if one is close enough.

        Only the hybrid path (what users get) consults the FAQ: the dense and BM25 modes
        exist to compare retrieval signals in the eval and stay pure.
        """
        if mode != "hybrid":
            return None
        return self.curated.match(qvec, self.params.curated.min_similarity)

    def ask(self, question: str, *, mode: Mode = "hybrid", query_vector: np.ndarray | None = None) -> Answer:
        """Answer one question. Raises ``EmptyQuestionError`` for an empty one.

        ``query_vector`` is the embedding of the *cleaned* question, when the caller
        encoded it already (see :meth:`ask_many`).
        """
        text, notices = clean_question(question)
        qvec = self.embedder.encode_one(text) if query_vector is None else query_vector
        match = self.curated_match(qvec, mode)
        if match is not None:
            return self.curated.answer(text, match, qvec, notices)
        hits, evidence, _ = self.retrieve(text, mode=mode, qvec=qvec)
        if not hits or self.declines(evidence, mode):
            return declined_answer(text, notices)
        sentences, citations = compose(text, qvec, hits, self.store, self.params.answer)
        if not sentences:
            return declined_answer(text, notices)
        return Answer(
            question=text,
            answer=join_sentences(sentences),
            declined=False,
            citations=citations,
            sentences=sentences,
            notices=notices,
            mode=mode,
        )

    def ask_many(self, questions: Iterable[str], *, batch_size: int = 32, mode: Mode = "hybrid") -> Iterator[Answer | None]:
        """Answers in order, encoding ``batch_size`` questions per encoder call.

        Encoding one question at a time is most of a batch's cost; a batch call shares
        the per-call overhead. Answers are yielded as each batch is done, so output
        streams. ``None`` stands for a question that is empty after hygiene (where
        :meth:`ask` raises ``EmptyQuestionError``).
        """
        pending = list(questions)
        for start in range(0, len(pending), batch_size):
            group = pending[start : start + batch_size]
            texts: list[str | None] = []
            for question in group:
                try:
                    texts.append(clean_question(question)[0])
                except EmptyQuestionError:
                    texts.append(None)
            wanted = [t for t in texts if t is not None]
            vectors = iter(self.embedder.encode(wanted, progress=False) if wanted else [])
            for question, text in zip(group, texts):
                yield None if text is None else self.ask(question, mode=mode, query_vector=next(vectors))

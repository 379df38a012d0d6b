"""The question-answering engine every front end shares.

``QAEngine.open`` has :mod:`indexer.lifecycle` make sure the index exists and is fresh
(building, updating or healing it, with a progress bar, when needed), loads it once, checks it was built with
this model, and builds BM25 over the same chunks; the intent prototypes and the FAQ
question forms are embedded once here. ``ask`` is then cheap: one query embedding
(:meth:`QAEngine.encode_query`, the one place questions are encoded; a batch may pass
vectors it computed up front), the intent, two searches, and sentence scoring on
precomputed vectors. Before the searches, the same query vector is compared with the
curated FAQ questions (:mod:`knowledge.qa.curated`); a clear match is answered from
the FAQ entry. Out-of-scope questions are declined, figure and code questions are
declined unless the chosen sentences hold a figure of that kind or code, and a
situational question that names our domain is answered with the best evidence there
is (a recommendation verdict is joined in above this package).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np

from indexer.embedder import Embedder
from indexer.lifecycle import open_index
from indexer.ondisk import SourceEntry, Store
from indexer.query_encoder import PrecomputedQueries, QueryEncoder, open_query_encoder
from knowledge.paths import SOURCES_DIR
from knowledge.qa.abstain import declined_answer, lacks_asked_kind, should_decline
from knowledge.qa.answers import Answer
from knowledge.qa.compose import compose, is_verdict, join_sentences, mentions_domain, side_of
from knowledge.qa.curated import CuratedMatch, CuratedMatcher
from knowledge.qa.hygiene import EmptyQuestionError, clean_question
from knowledge.qa.intent import CHOICE_INTENTS, Intent, IntentClassifier
from knowledge.qa.params import QAParams, load_params
from knowledge.qa.retrieval import Evidence, Hit, Mode, Retriever

__all__ = ["QAEngine"]

#: Intents a curated FAQ entry never answers (see ``QAEngine.curated_match``).
_NOT_CURATED = frozenset({"figure", "code", "out_of_scope", "situational"})


class QAEngine:
    """Cited extractive answers over one loaded index."""

    def __init__(self, store: Store, embedder: QueryEncoder, params: QAParams | None = None) -> None:
        self.store = store
        self.embedder = embedder
        self.params = params or load_params()
        self.retriever = Retriever(store, self.params.retrieval)
        self.curated = CuratedMatcher(store, embedder)
        self.intents = IntentClassifier(embedder)

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
        """The engine over ``index_dir``, the index built, updated or healed first (:mod:`indexer.lifecycle`).

        ``sources_dir`` overrides the notes the index follows (else the ones it was built from,
        else the shipped notes). ``embedder`` given: it encodes queries too. Otherwise builds use
        sentence-transformers (loaded only if a build runs) and queries the ONNX encoder, or a
        noted fallback.
        """
        opened = open_index(
            index_dir, sources_dir, default_sources=SOURCES_DIR, embedder=embedder, auto_build=auto_build, progress=progress
        )
        store = opened.store
        encoder: QueryEncoder = opened.embedder or open_query_encoder(store)
        store.check_model(encoder.model_id, encoder.dim, encoder.probe())
        return cls(store, encoder, params)

    def encode_ahead(self, questions: Sequence[str]) -> None:
        """Encode these (already clean) questions now, in batches; asking them later reuses the vectors.

        For harnesses that ask the same questions many times (``hwbot eval``, calibration).
        """
        self.embedder = PrecomputedQueries(self.embedder, list(questions))

    @property
    def sources(self) -> list[SourceEntry]:
        return list(self.store.manifest.sources)

    def encode_query(self, text: str) -> np.ndarray:
        """The question's embedding (normalized float32, shape (dim,)): the one place it is computed."""
        return np.asarray(self.embedder.encode([text])[0], dtype=np.float32)

    def retrieve(
        self, question: str, *, mode: Mode = "hybrid", k: int | None = None, qvec: np.ndarray | None = None
    ) -> tuple[list[Hit], Evidence, np.ndarray]:
        """Ranked chunks for an already-clean question (used by ``ask`` and the eval harness).

        ``qvec`` is the question's embedding when the caller already has it.
        """
        if qvec is None:
            qvec = self.encode_query(question)
        hits, evidence = self.retriever.search(question, qvec, mode=mode, k=k)
        return hits, evidence, qvec

    def intent(self, question: str, qvec: np.ndarray | None = None) -> Intent:
        """What an already-clean question asks for."""
        return self.intents.classify(question, self.encode_query(question) if qvec is None else qvec)

    def declines(self, evidence: Evidence, mode: Mode = "hybrid") -> bool:
        return should_decline(evidence, self.params.abstain, mode)

    def curated_match(
        self, qvec: np.ndarray, mode: Mode = "hybrid", intent: Intent | None = None, question: str | None = None
    ) -> CuratedMatch | None:
        """The curated FAQ entry that answers this question, if one clearly does.

        Only the hybrid path (what users get) consults the FAQ: the dense and BM25 modes
        exist to compare retrieval signals in the eval and stay pure. Figure, code and
        out-of-scope questions never get a curated answer (no entry holds a figure or
        code), nor do situational ones: a team's own situation needs a verdict weighing
        both sides, which no single FAQ entry gives.
        """
        if mode != "hybrid" or (intent is not None and intent.name in _NOT_CURATED):
            return None
        return self.curated.match(qvec, self.params.curated, question)

    def ask(self, question: str, *, mode: Mode = "hybrid", query_vector: np.ndarray | None = None) -> Answer:
        """Answer one question. Raises ``EmptyQuestionError`` for an empty one.

        ``query_vector`` is the cleaned question's embedding when a batch computed it
        already (normalized float32, shape (dim,)).
        """
        text, notices = clean_question(question)
        qvec = self.encode_query(text) if query_vector is None else np.asarray(query_vector, dtype=np.float32)
        intent = self.intents.classify(text, qvec)
        if intent.name == "out_of_scope":
            return declined_answer(text, notices, reason="out_of_scope", intent=intent.name)
        match = self.curated_match(qvec, mode, intent, text)
        if match is not None and intent.name in CHOICE_INTENTS and not is_verdict(match.entry.sentences[0][0]):
            match = None  # a choice is answered with a verdict first; this entry does not open with one
        if match is not None:
            return self.curated.answer(text, match, qvec, notices, max_sentences=intent.max_sentences, intent=intent.name)
        # A definition is often one glossary sentence: look a little deeper for it.
        depth = self.params.retrieval.top_chunks + 4 if intent.name == "definition" else None
        hits, evidence, _ = self.retrieve(text, mode=mode, qvec=qvec, k=depth)
        # A choice between our two accelerators, or a team describing its own situation in
        # our domain, is in scope by what it asks; its similarity is diluted by details.
        lenient = intent.decided_by.startswith("cue") and (intent.name == "situational" and mentions_domain(text)) or (
            intent.name == "comparison" and side_of(text) is not None
        )
        if not hits or (self.declines(evidence, mode) and not lenient):
            return declined_answer(text, notices, intent=intent.name)
        sentences, citations = compose(text, qvec, hits, self.store, self.params.answer, intent)
        if not sentences:
            return declined_answer(text, notices, intent=intent.name)
        if lacks_asked_kind(intent, sentences):
            reason = "no_code" if intent.name == "code" else "no_figure"
            return declined_answer(text, notices, reason=reason, intent=intent.name)
        return Answer(
            question=text,
            answer=join_sentences(sentences),
            declined=False,
            citations=citations,
            sentences=sentences,
            notices=notices,
            mode=mode,
            intent=intent.name,
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

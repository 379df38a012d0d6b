"""The question-answering engine every front end shares.

``QAEngine.open`` makes sure the index exists and is fresh (building or updating it,
with a progress bar, when sources changed), loads it once, checks it was built with
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

import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np

from indexer.build import BuildReport, build_index, staleness
from indexer.embedder import Embedder
from indexer.ondisk import SourceEntry, Store, load_store
from indexer.query_encoder import QueryEncoder, open_query_encoder
from knowledge.paths import SOURCES_DIR
from knowledge.qa.abstain import declined_answer, lacks_asked_kind, refuse_input, should_decline
from knowledge.qa.answers import Answer
from knowledge.qa.asks import Ask, answer_type, focus_of, split_asks
from knowledge.qa.compose import compose, is_verdict, mentions_domain, side_of
from knowledge.qa.curated import CuratedMatch, CuratedMatcher
from knowledge.qa.hygiene import EmptyQuestionError, clean_question
from knowledge.qa.intent import CHOICE_INTENTS, Intent, IntentClassifier
from knowledge.qa.joining import join_asks, join_sentences
from knowledge.qa.leads import answers_ask, excuses_object, key_objects, names_object
from knowledge.qa.params import QAParams, load_params
from knowledge.qa.retrieval import Evidence, Hit, Mode, Retriever

__all__ = ["QAEngine", "ensure_index"]

#: An answer that is not an open comparison: its lead and at most two supporting sentences.
MAX_PLAIN = 3
#: Asks about a team's own situation: diagnoses, does-it-matter, is-that-realistic, what to watch.
#: Where a preamble ends and the asking clause begins: a dash, a colon or a semicolon.
_ASKING_CLAUSE = re.compile(r"\s[\u2014\u2013-]\s|\u2014|[:;]\s")
#: An asking clause shorter than this leans on what came before it.
_MIN_ASKING_CLAUSE_WORDS = 7
#: A choice names what is chosen between: the accelerators themselves.
_ACCELERATOR = re.compile(r"\b(gpus?|tpus?|accelerators?|hardware|chips?)\b", re.I)
_SITUATED = frozenset({"diagnose", "how_to_fix", "does_matter", "realistic", "watch"})
#: Intents a curated FAQ entry never answers (see ``QAEngine.curated_match``).
_NOT_CURATED = frozenset({"figure", "code", "out_of_scope", "situational"})


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
        """Answer one question, ask by ask. Raises ``EmptyQuestionError`` for an empty one.

        ``query_vector`` is the cleaned question's embedding when a batch computed it
        already (normalized float32, shape (dim,)). A question of several asks is answered
        ask by ask, in order, each under its short label; the extra asks are encoded in one
        call.
        """
        text, notices = clean_question(question)
        refusal = refuse_input(text)
        if refusal is not None:
            return declined_answer(text, notices, reason=refusal)
        asks, _context, dropped = split_asks(text)
        if dropped:
            notices = notices + [f"The question holds {len(asks) + dropped} asks; only the first {len(asks)} are answered."]
        if len(asks) == 1:
            one = asks[0]
            if one.text != text:  # a pasted log around the question: only the question is searched
                query_vector = None
            qvec = self.encode_query(one.text) if query_vector is None else np.asarray(query_vector, dtype=np.float32)
            return self._answer_ask(one.text, qvec, one, mode, notices)
        vectors = np.asarray(self.embedder.encode([a.query for a in asks]), dtype=np.float32)
        parts: list[Answer] = []
        used: set[str] = set()
        for a, v in zip(asks, vectors):
            part = self._answer_ask(a.query, v, a, mode, [], used=frozenset(used))
            used.update(s.text for s in part.sentences)
            parts.append(part)
        return join_asks(text, asks, parts, notices, mode)

    def _asks_elsewhere(self, focus: str, text: str) -> bool:
        """A question about something else after a preamble in our domain ("quick break from the
        GPU debates: ...") is out of scope by what it asks, not by what it mentions. A short clause
        ("... — which way should we lean?") leans on its context and is not judged alone."""
        asked = _ASKING_CLAUSE.split(focus)[-1].strip()
        if asked == text or len(asked.split()) < _MIN_ASKING_CLAUSE_WORDS or mentions_domain(asked):
            return False
        return self.intents.classify(asked, self.encode_query(asked)).name == "out_of_scope"

    def _answer_ask(
        self, text: str, qvec: np.ndarray, one: Ask, mode: Mode, notices: list[str], used: frozenset[str] = frozenset(),
    ) -> Answer:
        """The answer to one ask: curated, composed from the notes, or declined (``used``: sentences
        an earlier part already quoted, never quoted again)."""
        intent = self.intents.classify(text, qvec)
        focus = focus_of(one.text)
        if focus != one.text and intent.name in ("figure", "code"):
            # a number in the situation ("slower than on a V100") is not a request for a figure:
            # only the asking sentence's own words make the ask a figure or code request
            intent = self.intents.classify(focus, qvec)
        if intent.name != "out_of_scope" and self._asks_elsewhere(focus, one.text):
            return declined_answer(text, notices, reason="out_of_scope", intent="out_of_scope")
        kind = answer_type(one.text, intent.name)
        ask = replace(one, type=kind)
        if intent.name == "out_of_scope":
            return declined_answer(text, notices, reason="out_of_scope", intent=intent.name)
        if kind != "compare" and intent.max_sentences > MAX_PLAIN:
            intent = replace(intent, max_sentences=MAX_PLAIN)  # the lead and at most two supporting sentences
        # the object a how / what / yes-no ask is about; a team's choice may mention anything in passing
        # (the asking sentence's objects, not the ones its context mentions: "we ported to a v3-8 ...")
        choosing = kind in ("choice", "compare") and _ACCELERATOR.search(focus) is not None
        objects = [] if choosing else key_objects(focus)
        if kind in _SITUATED:  # numbers there describe the situation ("30% utilization"), not what is asked
            objects = [o for o in objects if o.isalpha()]
        match = None if objects else self.curated_match(qvec, mode, intent, text)
        if match is not None and intent.name in CHOICE_INTENTS and not is_verdict(match.entry.sentences[0][0]):
            match = None  # a choice is answered with a verdict first; this entry does not open with one
        if match is not None and not answers_ask(kind, match.entry.sentences[0][0], ask.options):
            match = None  # the entry's first sentence must answer the ask, not only its topic
        if match is not None and match.entry.sentences[0][0] in used:
            match = None  # an earlier part already quoted this entry's answer
        if match is not None:
            curated = self.curated.answer(text, match, qvec, notices, max_sentences=intent.max_sentences, intent=intent.name)
            return curated.model_copy(update={"ask": kind})
        # A definition is often one glossary sentence: look a little deeper for it.
        depth = self.params.retrieval.top_chunks + 4 if intent.name == "definition" else None
        hits, evidence, _ = self.retrieve(text, mode=mode, qvec=qvec, k=depth)
        # A choice between our two accelerators, or a team describing its own situation in
        # our domain, is in scope by what it asks; its similarity is diluted by details.
        lenient = intent.decided_by.startswith("cue") and (intent.name == "situational" and mentions_domain(text)) or (
            intent.name == "comparison" and side_of(text) is not None
        )
        # A team's own trouble ("our pod sits at 30% utilization, what's going on?") is diluted
        # by its details the same way; in our domain and with the question's words found, it is answered.
        lenient = lenient or (
            kind in _SITUATED and mentions_domain(text) and evidence.top_bm25 >= self.params.abstain.min_bm25
        )
        if not hits or (self.declines(evidence, mode) and not lenient):
            return declined_answer(text, notices, intent=intent.name)
        sentences, citations = compose(
            text, qvec, hits, self.store, self.params.answer, intent,
            ask=ask if mode == "hybrid" else None, form_scores=evidence.form_scores if mode == "hybrid" else None,
            can_lead=self.retriever.forms.can_lead, used=used,
        )
        nearest = hits[0].chunk.heading_path[-1] if hits[0].chunk.heading_path else hits[0].chunk.title
        if not sentences:
            return declined_answer(text, notices, reason="no_answer", intent=intent.name, nearest=nearest)
        missing = [o for o in objects if not names_object(o, [s.text for s in sentences])
                   and not excuses_object(kind, sentences[0].text, text)]
        if missing:
            return declined_answer(text, notices, reason="off_object", intent=intent.name, nearest=nearest, subject=missing[0])
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
            ask=kind,
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

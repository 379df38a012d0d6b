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
is (a recommendation verdict is joined in above this package). A question of several
asks (:mod:`knowledge.qa.asks`) is answered ask by ask, each step below defined once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from indexer.embedder import Embedder
from indexer.lifecycle import open_index
from indexer.manifest import SourceEntry
from indexer.ondisk import Store
from indexer.query_encoder import PrecomputedQueries, QueryEncoder, open_query_encoder
from indexer.query_texts import PrefilledEncoder
from knowledge.paths import SOURCES_DIR
from knowledge.qa.abstain import declined_answer, gate_sure, kind_reason, lacks_asked_kind, out_of_domain, refuse_input, too_weak
from knowledge.qa.answers import Answer
from knowledge.qa.ask_model import ask_type
from knowledge.qa.asks import Ask, ask_data, asks_for_method, focus_of, without_cue
from knowledge.qa.compose import compose
from knowledge.qa.curated import CuratedMatch, CuratedMatcher
from knowledge.qa.domain_gate import in_domain, out_probability
from knowledge.qa.facets import FACETED_ASKS, facet_answerer, situation_facets, with_facets
from knowledge.qa.fixed_texts import query_side_texts
from knowledge.qa.hygiene import MAX_QUESTION_CHARS, EmptyQuestionError, clean_question
from knowledge.qa.intent import CHOICE_INTENTS, Intent, IntentClassifier, form_free, intent_data
from knowledge.qa.joining import answer_asks, join_asks, join_sentences
from knowledge.qa.lead_model import lead_model
from knowledge.qa.leads import excuses_object, key_objects, names_object, opens_curated
from knowledge.qa.lexical import sentence_idf, tokenize
from knowledge.qa.params import QAParams, load_params
from knowledge.qa.retrieval import Evidence, Hit, Mode, Retriever
from knowledge.qa.scope import asking_clause, asks_elsewhere
from knowledge.qa.sides import is_verdict, mentions_domain, side_of, vocabulary
from knowledge.qa.splitting import leans_on_context, split_asks
from knowledge.spelling import notes_files, respell

__all__ = ["QAEngine"]

#: An answer that is not an open comparison: its lead and at most two supporting sentences.
MAX_PLAIN = 3
#: Asks about a team's own situation: diagnoses, does-it-matter, is-that-realistic, what to watch.
#: A choice names what is chosen between: the accelerators themselves.
_ACCELERATOR = re.compile(r"\b(gpus?|tpus?|accelerators?|hardware|chips?)\b", re.I)
_SITUATED = frozenset({"diagnose", "how_to_fix", "does_matter", "realistic", "watch"})
#: Intents a curated FAQ entry never answers (see ``QAEngine.curated_candidate``).
_NOT_CURATED = frozenset({"figure", "code", "out_of_scope", "situational"})


def _no_step(name: str) -> None:
    """The default ``on_step``: no step is timed."""
    return None


class QAEngine:
    """Cited extractive answers over one loaded index."""

    def __init__(
        self, store: Store, embedder: QueryEncoder, params: QAParams | None = None, *, max_question_chars: int = MAX_QUESTION_CHARS,
        retriever: Retriever | None = None,
    ) -> None:
        self.store = store
        self.max_question_chars = max_question_chars
        self.embedder = embedder
        self.params = params or load_params()
        self.retriever = retriever or Retriever(store, self.params.retrieval)
        # The prototypes and FAQ forms were embedded by the index build; only texts it
        # lacks (an index older than the data) are encoded here.
        self.fixed_texts = PrefilledEncoder(embedder, store.query_texts, store.query_text_vectors)
        self.curated = CuratedMatcher(store, self.fixed_texts)
        self.intents = IntentClassifier(self.fixed_texts)

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
        encoder_cache: Path | None = None,
        max_question_chars: int = MAX_QUESTION_CHARS,
    ) -> "QAEngine":
        """The engine over ``index_dir``, the index built, updated or healed first (:mod:`indexer.lifecycle`).

        ``sources_dir`` overrides the notes the index follows (else the ones it was built from,
        else the shipped notes). ``embedder`` given: it encodes queries too. Otherwise builds use
        sentence-transformers (loaded only if a build runs) and queries the ONNX encoder, or a
        noted fallback. ``encoder_cache`` is where a build exports the ONNX encoder;
        ``max_question_chars`` is where a question is cut (``HWBOT_MAX_QUESTION_CHARS``).
        """
        opened = open_index(
            index_dir, sources_dir, default_sources=SOURCES_DIR, embedder=embedder, auto_build=auto_build, progress=progress,
            encoder_cache=encoder_cache, query_texts=query_side_texts(),
        )
        store = opened.store
        params = params or load_params()
        # BM25 and the rule tables need no encoder: built first, they overlap the prefetched
        # ONNX session still loading in its thread (:func:`knowledge.index.prefetch_encoder`);
        # read after it, they were ~0.04 s of every cold ask's first answer (regular expressions
        # compiled, the sentences' words counted)
        retriever = Retriever(store, params.retrieval)
        intent_data(), ask_data(), vocabulary(), sentence_idf(store), lead_model()
        encoder: QueryEncoder = opened.embedder or open_query_encoder(store)
        store.check_model(encoder.model_id, encoder.dim, encoder.probe())
        return cls(store, encoder, params, max_question_chars=max_question_chars, retriever=retriever)

    def clean(self, question: str) -> tuple[str, list[str]]:
        """The question after hygiene, and notices for the user (:func:`knowledge.qa.hygiene.clean_question`)."""
        return clean_question(question, self.max_question_chars)

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

    def curated_candidate(
        self, qvec: np.ndarray, intent: Intent | None, question: str | None, mode: Mode = "hybrid"
    ) -> CuratedMatch | None:
        """The curated FAQ entry that could answer this question, before the two thresholds
        (:meth:`~knowledge.qa.curated.CuratedMatch.clears`) that calibration tunes.

        Only the hybrid path (what users get) consults the FAQ: the dense and BM25 modes
        exist to compare retrieval signals in the eval and stay pure. Figure, code and
        out-of-scope questions never get a curated answer (no entry holds a figure or
        code), nor do situational ones: a team's own situation needs a verdict weighing
        both sides, which no single FAQ entry gives. A choice is answered with a verdict
        first, so an entry that does not open with one does not answer it.
        """
        if mode != "hybrid" or (intent is not None and intent.name in _NOT_CURATED):
            return None
        match = self.curated.candidate(qvec, self.params.curated, question)
        choice = intent is not None and intent.name in CHOICE_INTENTS
        if match is not None and choice and not is_verdict(match.entry.sentences[0][0]):
            return None
        return match

    def curated_match(
        self, qvec: np.ndarray, mode: Mode = "hybrid", intent: Intent | None = None, question: str | None = None
    ) -> CuratedMatch | None:
        """The curated FAQ entry that answers this question, if one clearly does (what :meth:`ask` uses).

        Without ``intent`` or ``question`` the checks that need them are skipped."""
        match = self.curated_candidate(qvec, intent, question, mode)
        return match if match is not None and match.clears(self.params.curated) else None

    @staticmethod
    def lenient(intent: Intent, text: str) -> bool:
        """In scope by what it asks, whatever the evidence: a choice between our two accelerators,
        or a team describing its own situation in our domain (its similarity is diluted by details)."""
        return intent.decided_by.startswith("cue") and (intent.name == "situational" and mentions_domain(text)) or (
            intent.name == "comparison" and side_of(text) is not None
        )

    def retrieval_depth(self, intent: Intent) -> int | None:
        """How many chunks to retrieve: a definition is often one glossary sentence, so look a little deeper."""
        return self.params.retrieval.top_chunks + 4 if intent.name == "definition" else None

    def ask(
        self,
        question: str,
        *,
        mode: Mode = "hybrid",
        query_vector: np.ndarray | None = None,
        on_step: Callable[[str], object] | None = None,
    ) -> Answer:
        """Answer one question, ask by ask. Raises ``EmptyQuestionError`` for an empty one.

        ``query_vector`` is the cleaned question's embedding when a batch computed it
        already (normalized float32, shape (dim,)). A question of several asks is answered
        ask by ask, in order, each under its short label; the extra asks are encoded in one
        call. ``on_step(name)`` is called as each step ends (the latency bench times the steps).
        """
        step = on_step or _no_step
        text, notices = self.clean(question)
        step("hygiene")
        refusal = refuse_input(text)
        if refusal is not None:
            return declined_answer(text, notices, reason=refusal)
        asks, context, dropped = split_asks(text)
        if dropped:
            notices = notices + [f"The question holds {len(asks) + dropped} asks; only the first {len(asks)} are answered."]
        if len(asks) == 1:
            one = asks[0]
            if one.text != text:  # a pasted log around the question: only the question is searched
                query_vector = None
            qvec = self.encode_query(one.text) if query_vector is None else np.asarray(query_vector, dtype=np.float32)
            step("encode")
            return self._answer_ask(one.text, qvec, one, mode, notices, step=step)
        vectors = dict(zip([a.query for a in asks], np.asarray(self.embedder.encode([a.query for a in asks]), dtype=np.float32)))
        step("encode")

        def answer_one(query: str, one: Ask, used: frozenset[str], reserved: frozenset[str] = frozenset()) -> Answer:
            qvec = vectors[query] if query in vectors else self.encode_query(query)  # a retry with context: encoded now
            return self._answer_ask(query, qvec, one, mode, [], used=used, step=step, reserved=reserved)

        def may_carry(one: Ask, before: Answer) -> bool:
            # it points back, or it asks what to watch out for about the thing an ask before it
            # named, or the gate alone does not call it out of the domain; after an answered ask,
            # only the gate's certainty does (alone it is a fragment of a question about our domain)
            if leans_on_context(one.text) or self._watches_what_came_before(one.text):
                return True
            qvec = vectors[one.query]
            evidence = self.retrieve(one.query, mode=mode, qvec=qvec)[1]
            if before.declined:
                return not out_of_domain(qvec, evidence)
            return out_probability(qvec, evidence) < self.params.abstain.carry_out

        return join_asks(text, asks, answer_asks(asks, answer_one, may_carry, context), notices, mode)

    def _watches_what_came_before(self, text: str) -> bool:
        """A what-to-watch-for ask that names nothing the notes do not ("what are the main gotchas?",
        "anything to watch out for?" after "are we still billed while the job stalls?") is about
        the plan or thing an ask before it named; "what are the risks of eating pizza daily?" names
        its own thing, which the notes never say. So is a bare follow-up of one or two words the
        notes use and no accelerator ("2. what's the fix?" after "1. why would a TPU sit idle?")."""
        known = sentence_idf(self.store)
        rest = without_cue(text, "watch")
        if rest is None:
            words = tokenize(text)
            return 0 < len(words) <= 2 and all(t in known for t in words) and not mentions_domain(text)
        return all(t in known for t in tokenize(rest))

    def out_of_domain(self, text: str, qvec: np.ndarray, evidence: Evidence, focus: str, mode: Mode) -> bool:
        """The learned gate's call (:func:`knowledge.qa.domain_gate.out_of_domain`), made again without
        what the question says about the answer's form (:func:`knowledge.qa.intent.form_free`): "in one
        line pls" pulls "pallas = ?" away from the notes, so it is declined only if declined without it,
        and again with its slips respelt (:mod:`knowledge.spelling`)."""
        if not out_of_domain(qvec, evidence, asking_clause(focus), self.encode_query, text):
            return False
        # with its slips of the notes' words respelt, only a confident admission counts (as for a clause):
        # "evryone ... learnin" moved a covered question out (0.71, 0.09 spelt right), while "servng on a
        # tpu" in a quantization question only came nearer the line (0.86, 0.56). The answer reads the text as written.
        respelt = respell(text, notes_files()).text
        if respelt != text and in_domain(rvec := self.encode_query(respelt), self.retrieve(respelt, mode=mode, qvec=rvec)[1]):
            return False
        plain = form_free(text)
        if not plain:
            return True
        pvec = self.encode_query(plain)
        return out_of_domain(pvec, self.retrieve(plain, mode=mode, qvec=pvec)[1], asking_clause(focus_of(plain)), self.encode_query, plain)

    def _admitted(self, text: str, qvec: np.ndarray, mode: Mode) -> bool:
        """The learned gate overrules an out-of-scope call by prototypes or by an off-topic clause
        when it is confident the question is in the domain (hybrid evidence only: what it was fitted on)."""
        return gate_sure(mode, qvec, self.retrieve(text, mode=mode, qvec=qvec)[1])

    def _answer_ask(
        self, text: str, qvec: np.ndarray, one: Ask, mode: Mode, notices: list[str], used: frozenset[str] = frozenset(),
        step: Callable[[str], object] = _no_step, reserved: frozenset[str] = frozenset(),
    ) -> Answer:
        """The answer to one ask: curated, composed from the notes, or declined (``used``: sentences
        an earlier part already quoted, never quoted again; ``reserved``: later parts' leads). The steps are :func:`~knowledge.qa.observation.observe`'s, plus what
        only an ask knows: its answer type and the object it asks about."""
        intent = self.intents.classify(text, qvec)
        step("intent")
        focus = focus_of(one.text)
        typed_on = text  # the words the intent was read from (read again in scope below)
        if focus != one.text and intent.name in ("figure", "code"):
            # a number in the situation ("slower than on a V100") is not a request for a figure:
            # only the asking sentence's own words make the ask a figure or code request
            typed_on = focus
            intent = self.intents.classify(focus, qvec)
        if intent.name in ("figure", "code") and asks_for_method(one.text):
            # "how can we stop paying the hourly price?" asks for a method, not a figure
            intent = replace(intent, name="how", max_sentences=MAX_PLAIN, decided_by=f"method ask over {intent.name}")
        if intent.name == "out_of_scope" or asks_elsewhere(self.intents, self.encode_query, focus, one.text):
            if not self._admitted(text, qvec, mode):
                return declined_answer(text, notices, reason="out_of_scope", intent="out_of_scope")
            intent = self.intents.classify(typed_on, qvec, in_scope=True)
        # the answer type by meaning (knowledge.qa.ask_model): the asking sentence beside the whole ask
        kind = ask_type(one.text, intent.name, qvec, self.encode_query)
        ask = replace(one, type=kind)
        if kind != "compare" and intent.max_sentences > MAX_PLAIN:
            intent = replace(intent, max_sentences=MAX_PLAIN)  # the lead and at most two supporting sentences
        # the object a how / what / yes-no ask is about; a team's choice may mention anything in passing
        # (the asking sentence's objects, not the ones its context mentions: "we ported to a v3-8 ...")
        choosing = kind in ("choice", "compare") and _ACCELERATOR.search(focus) is not None
        objects = [] if choosing else key_objects(focus)
        if kind in _SITUATED:  # numbers there describe the situation ("30% utilization"), not what is asked
            objects = [o for o in objects if o.isalpha()]
        hits, evidence, _ = self.retrieve(text, mode=mode, qvec=qvec, k=self.retrieval_depth(intent))
        step("retrieve")
        if hits and self.out_of_domain(text, qvec, evidence, focus, mode):  # the learned gate, before any answer path
            return declined_answer(text, notices, reason=kind_reason(intent.name, "out_of_scope"), intent=intent.name)
        match = None if objects else self.curated_match(qvec, mode, intent, text)
        step("curated")
        if match is not None and not opens_curated(kind, match.entry.sentences[0][0], ask.options):
            match = None  # the entry's first sentence must answer the ask, not only its topic
        if match is not None and match.entry.sentences[0][0] in used:
            match = None  # an earlier part already quoted this entry's answer
        if match is not None:
            curated = self.curated.answer(text, match, qvec, notices, max_sentences=intent.max_sentences, intent=intent.name)
            return curated.model_copy(update={"ask": kind})
        lenient = self.lenient(intent, text)
        # A team's own trouble ("our pod sits at 30% utilization, what's going on?") is diluted
        # by its details the same way; in our domain and with the question's words found, it is answered.
        lenient = lenient or (kind in _SITUATED and mentions_domain(text) and evidence.top_bm25 >= self.params.abstain.min_bm25)
        if not hits or too_weak(evidence, self.params.abstain, mode, lenient, qvec):
            return declined_answer(text, notices, intent=intent.name)
        nearest = hits[0].chunk.heading_path[-1] if hits[0].chunk.heading_path else hits[0].chunk.title
        sentences, citations = compose(
            text, qvec, hits, self.store, self.params.answer, intent,
            ask=ask if mode == "hybrid" else None, form_scores=evidence.form_scores if mode == "hybrid" else None,
            can_lead=self.retriever.forms.can_lead, used=used, reserved=reserved,
        )
        if kind in FACETED_ASKS and mode == "hybrid" and sentences:
            sentences, citations = with_facets(sentences, citations, situation_facets(text, focus),
                                               facet_answerer(self, focus, ask, intent, mode, used), verdicts=kind != "watch")
        step("compose")
        if not sentences:
            return declined_answer(text, notices, reason="no_answer", intent=intent.name, nearest=nearest)
        missing = [o for o in objects if not names_object(o, [s.text for s in sentences])
                   and not excuses_object(kind, sentences[0].text, text)]
        # unless the learned gate is sure the question is ours: the name is then part of the situation, not the ask
        if missing and not gate_sure(mode, qvec, evidence):
            return declined_answer(text, notices, reason="off_object", intent=intent.name, nearest=nearest, subject=missing[0])
        if lacks_asked_kind(intent, sentences):
            return declined_answer(text, notices, reason=kind_reason(intent.name, "no_figure"), intent=intent.name)
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
                    texts.append(self.clean(question)[0])
                except EmptyQuestionError:
                    texts.append(None)
            wanted = [t for t in texts if t is not None]
            vectors = iter(self.embedder.encode(wanted, progress=False) if wanted else [])
            for question, text in zip(group, texts):
                yield None if text is None else self.ask(question, mode=mode, query_vector=next(vectors))

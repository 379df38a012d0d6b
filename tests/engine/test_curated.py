"""Curated FAQ answers: a close question gets the FAQ entry, verbatim and cited; others fall back."""

from __future__ import annotations

import re

import pytest

from indexer.sentences import normalize_ws
from knowledge.evaluation.evaluate import calibrate_curated, load_dev_set
from knowledge.qa.curated import NOTES_PREFIX, cites_map
from knowledge.qa.engine import QAEngine

LABEL = re.compile(r"^\[[A-Za-z0-9_\-]+:c\d{4}\] \S+ p\d+-\d+$")
#: A paraphrase of the FAQ entry "Why do static shapes matter on a TPU?" (also a dev question).
PARAPHRASE = "What are static shapes and why do they matter on TPU?"


class CountingEmbedder:
    """The real embedder, counting how often (and with how many texts) it is asked to encode."""

    def __init__(self, real) -> None:
        self.real = real
        self.calls: list[int] = []

    def encode(self, texts, *, progress=None):
        self.calls.append(len(texts))
        return self.real.encode(texts, progress=progress)

    def encode_one(self, text):
        return self.encode([text], progress=False)[0]

    def __getattr__(self, name):
        return getattr(self.real, name)


def faq_chunks(qa):
    return [c for c in qa.store.chunks if c.source_type == "faq"]


def test_every_curated_entry_is_one_question_resting_on_real_note_chunks(qa):
    chunks = qa.store.by_id()
    entries = qa.curated.entries
    assert len(entries) >= 10 and len(entries) == len(faq_chunks(qa))  # one chunk per entry
    for entry in entries:
        assert entry.question.endswith("?")
        assert entry.cites, entry.question
        for cited in entry.cites:
            assert cited in chunks and chunks[cited].source_type != "faq"
        assert 1 <= len(entry.sentences) <= qa.params.answer.max_sentences


def test_a_close_question_gets_the_curated_answer_verbatim(qa):
    answer = qa.ask(PARAPHRASE)
    assert answer.mode == "curated" and not answer.declined
    chunks = qa.store.by_id()
    faq = chunks[answer.sentences[0].chunk_id]
    assert faq.source_type == "faq" and faq.heading_path[-1] == "Why do static shapes matter on a TPU?"
    # The whole entry, in order, each sentence verbatim and citing the FAQ chunk.
    assert [s.text for s in answer.sentences] == faq.sentences
    for s in answer.sentences:
        assert s.role == "curated" and s.chunk_id == faq.chunk_id
        assert normalize_ws(s.text) in normalize_ws(faq.text)
        assert s.text in answer.answer
    assert f"[{faq.chunk_id}]" in answer.answer


def test_curated_citations_are_the_faq_chunk_then_the_notes_it_cites(qa):
    answer = qa.ask(PARAPHRASE)
    chunks = qa.store.by_id()
    faq_id = answer.sentences[0].chunk_id
    ids = [c.chunk_id for c in answer.citations]
    assert ids == [faq_id] + chunks[faq_id].cites
    for c in answer.citations:
        chunk = chunks[c.chunk_id]
        assert LABEL.match(c.label) and c.label == chunk.label
        assert c.source == chunk.file and c.pages == chunk.pages
        assert -1.0 <= c.score <= 1.0
    notes_line = answer.answer.splitlines()[-1]
    assert notes_line.startswith(NOTES_PREFIX)
    assert all(f"[{cid}]" in notes_line for cid in ids[1:])
    assert answer.to_contract()["citations"][0]["chunk_id"] == faq_id


def test_a_question_the_faq_does_not_ask_goes_down_the_hybrid_path(qa):
    question = "How does tf.data keep a TPU fed?"
    best = qa.curated.best(qa.embedder.encode_one(question))
    assert best is not None and best.similarity < qa.params.curated.min_similarity
    answer = qa.ask(question)
    assert answer.mode == "hybrid" and not answer.declined
    assert all(s.role != "curated" for s in answer.sentences)


def test_out_of_domain_questions_are_never_curated(qa):
    answer = qa.ask("How do I cook pasta?")
    assert answer.declined and answer.mode == "declined" and answer.citations == []


def test_only_the_hybrid_path_consults_the_faq(qa):
    for mode in ("dense", "bm25"):
        assert qa.ask(PARAPHRASE, mode=mode).mode == mode


def test_the_threshold_is_the_parameter(qa):
    strict = qa.params.model_copy(update={"curated": qa.params.curated.model_copy(update={"min_similarity": 1.0})})
    engine = QAEngine(qa.store, qa.embedder, strict)
    assert engine.ask(PARAPHRASE).mode == "hybrid"


def test_curated_questions_come_from_the_index_and_each_ask_encodes_once(qa):
    counting = CountingEmbedder(qa.embedder)
    engine = QAEngine(qa.store, counting, qa.params)
    assert counting.calls == []  # the FAQ questions were embedded at index time
    for entry, vector in zip(engine.curated.entries, engine.curated.vectors):
        assert float(vector @ qa.embedder.encode_one(entry.question)) > 0.999
    assert engine.ask(PARAPHRASE).mode == "curated"
    assert engine.ask("How does tf.data keep a TPU fed?").mode == "hybrid"
    assert counting.calls == [1, 1]


def test_dev_set_has_faq_paraphrases_labelled_with_note_chunks(qa):
    chunks = qa.store.by_id()
    paraphrases = [i for i in load_dev_set() if i.id.startswith("faq")]
    assert len(paraphrases) >= 8
    for item in paraphrases:
        assert item.domain == "in" and item.relevant
        assert all(chunks[c].source_type == "notes" for c in item.relevant)


@pytest.fixture(scope="module")
def calibration(qa):
    return calibrate_curated(qa, load_dev_set())


def test_shipped_threshold_gives_no_wrong_curated_answer_on_the_dev_set(qa, calibration):
    threshold, right, wrong = calibration
    assert wrong == 0 and right >= 8
    assert qa.params.curated.min_similarity >= threshold  # never looser than the calibrated value
    for item in load_dev_set():
        best = qa.curated.best(qa.embedder.encode_one(item.question))
        if item.domain == "out":
            assert best.similarity < qa.params.curated.min_similarity, item.question


def test_cites_map_lets_the_eval_count_a_faq_chunk_as_relevant(qa):
    expand = cites_map(qa.store)
    faq_ids = {c.chunk_id for c in faq_chunks(qa)}
    assert faq_ids <= set(expand)
    for chunk_id, cited in expand.items():
        assert cited == set(qa.store.by_id()[chunk_id].cites)

"""Cutting a message into clauses: where it cuts, what it keeps, and its bounds on bad input."""

from __future__ import annotations

from knowledge.recommend.learned.clauses import MAX_CLAUSE_CHARS, MAX_CLAUSES, split_clauses


def test_sentences_semicolons_lines_and_contrast_words_cut_but_versions_do_not() -> None:
    text = "we're on AWS with PyTorch 2.3; 8 H100s.\nthe model changes weekly but we have no time to tune!"
    got = [c.text for c in split_clauses(text)]
    assert got == ["we're on AWS with PyTorch 2.3", "8 H100s", "the model changes weekly", "but we have no time to tune"]


def test_spans_point_back_into_the_message() -> None:
    text = "hi all - quick q. we train on a TPU pod, data lives in GCS"
    for clause in split_clauses(text):
        assert text[clause.start:clause.end] == clause.text


def test_a_long_run_on_sentence_is_cut_at_commas_a_short_one_is_not() -> None:
    short = "we're not on GCP, everything is on AWS"
    assert [c.text for c in split_clauses(short)] == [short]
    long = ", ".join(["we use pytorch for the vision model and jax for the research code"] * 3)
    assert len(split_clauses(long)) == 3


def test_bad_input_is_bounded_and_numbers_or_emoji_alone_are_no_clause() -> None:
    assert split_clauses("12345 678 9") == [] and split_clauses("🚀🚀 🔥") == [] and split_clauses("") == []
    huge = "we train on GPUs. " * 2000
    clauses = split_clauses(huge)
    assert len(clauses) == MAX_CLAUSES
    one_line = "x" * 50_000
    assert [len(c.text) for c in split_clauses(one_line)] == [MAX_CLAUSE_CHARS]


def test_a_questions_asking_tail_after_a_statement_is_its_own_clause() -> None:
    text = "training on gke with 8 gpus on one node, is tpu worth a shot? thanks"
    assert [c.text for c in split_clauses(text)] == ["training on gke with 8 gpus on one node", "is tpu worth a shot", "thanks"]
    # an opening question keeps what it names inside the question
    assert [c.text for c in split_clauses("is a TPU worth it for a model on 8 GPUs?")] == ["is a TPU worth it for a model on 8 GPUs"]
    # a tail without its "?" is no question
    assert len(split_clauses("we use jax, which one is best. ok")) == 2

"""The fresh-batch scorer: what counts as answered in the first sentence, anywhere, per part,
and how extracted profiles are judged. Synthetic items only: real batches are measured once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from common.errors import InputError
from knowledge.evaluation.fresh import (
    FreshMessage,
    FreshQuestion,
    has_term,
    lead_sentence,
    load_fresh_batch,
    score_messages,
    score_questions,
)

ANSWER = (
    "TPUs need static shapes, so XLA recompiles when shapes change. [file_gpu004:c0004]\n"
    "For GPUs: Eager PyTorch runs any shape. [file_gpu001:c0002]"
)


def _answer(text: str, declined: bool = False) -> dict:
    cites = [] if declined else [{"label": "[file_gpu004:c0004] x.md p1-1"}]
    return {"answer": text, "declined": declined, "citations": cites}


def test_lead_sentence_stops_at_the_first_citation() -> None:
    assert lead_sentence(ANSWER) == "TPUs need static shapes, so XLA recompiles when shapes change."
    assert lead_sentence("The notes do not cover this.\nNearest: x") == "The notes do not cover this."


def test_term_alternatives_any_one_counts_case_insensitively() -> None:
    assert has_term("Runs under the xla compiler", "XLA|jit")
    assert not has_term("Runs eagerly", "XLA|jit")


def test_question_metrics_separate_lead_anywhere_parts_and_refusals() -> None:
    items = [
        FreshQuestion(id="1", question="why recompile?", domain="in", terms=["XLA", "static shape"]),
        FreshQuestion(id="2", question="eager?", domain="in", terms=["eager"]),
        FreshQuestion(id="3", question="(1) xla (2) eager (3) pods", domain="in", terms=["XLA"],
                      parts=[["XLA"], ["eager"], ["pod"]]),
        FreshQuestion(id="4", question="slurm?", domain="in", terms=["XLA"]),
        FreshQuestion(id="5", question="ignore the notes", domain="out"),
        FreshQuestion(id="6", question="EKS node groups?", domain="out"),
    ]
    answers = [_answer(ANSWER), _answer(ANSWER), _answer(ANSWER), _answer("The notes do not cover this.", True),
               _answer("", True), _answer(ANSWER)]
    report = score_questions(items, answers)
    assert (report.first_sentence.k, report.first_sentence.n) == (2, 4)   # item 2's term is only in the second sentence
    assert (report.anywhere_cited.k, report.anywhere_cited.n) == (3, 4)
    assert (report.parts_answered.k, report.parts_answered.n) == (2, 3)   # "pod" is nowhere
    assert (report.false_refusal.k, report.ood_declined.k) == (1, 1)


def test_a_multi_part_answer_is_judged_by_the_first_sentence_of_each_section() -> None:
    """One sentence cannot answer three asks: each part's terms must lead some labelled section,
    and a label's words (the question's own) never count as the answer's."""
    q = "two things: (1) how does TPU debugging compare, (2) what tools help with jitted JAX code?"
    item = FreshQuestion(id="m", question=q, domain="in", terms=["harder than on a GPU", "jax.debug.print"],
                         parts=[["harder than on a GPU"], ["jax.debug.print"]])
    sections = (
        "how does TPU debugging compare: Debugging on a TPU is harder than on a GPU. [file_gpu004:c0004]\n"
        "what tools help with jitted JAX…: In JAX, jax.debug.print prints inside jit. [file_gpu004:c0004]"
    )
    buried = (
        "how does TPU debugging compare: Debugging on a TPU is harder than on a GPU. [file_gpu004:c0004]\n"
        "what tools help with jitted JAX…: Compiling takes time. [file_gpu004:c0004] Use jax.debug.print. [file_gpu004:c0004]"
    )
    echoed = FreshQuestion(id="e", question="two q's on jax.debug.print: (1) is it slow, (2) is TPU debugging harder than on a GPU?",
                           domain="in", terms=["jax.debug.print", "harder than on a GPU"],
                           parts=[["jax.debug.print"], ["harder than on a GPU"]])
    echo = ("two q's on jax.debug.print: (1) is it slow: It is not. [file_gpu004:c0004]\n"
            "is TPU debugging harder than on…: Debugging on a TPU is harder than on a GPU. [file_gpu004:c0004]")
    report = score_questions([item, item, echoed], [_answer(sections), _answer(buried), _answer(echo)])
    assert [r.first_sentence for r in report.items] == [True, False, False]


def test_an_uncited_answer_does_not_count_anywhere() -> None:
    items = [FreshQuestion(id="1", question="q", domain="in", terms=["XLA"])]
    report = score_questions(items, [{"answer": "XLA compiles.", "declined": False, "citations": []}])
    assert report.first_sentence.k == 1 and report.anywhere_cited.k == 0


def test_message_metrics_count_right_wrong_and_invented_fields() -> None:
    items = [
        FreshMessage(id="a", text="we're on AWS with PyTorch", expect={"cloud": "other_single_cloud", "framework": "pytorch"}),
        FreshMessage(id="b", text="nobody has written JAX", expect={}),
        FreshMessage(id="c", text="our own server room", expect={"cloud": "on_prem"}),
    ]
    got = [{"cloud": "other_single_cloud", "framework": "pytorch"}, {"framework": "jax"}, {"cloud": "google_cloud"}]
    report = score_messages(items, got)
    assert (report.recall.k, report.recall.n) == (2, 3)
    assert (report.precision.k, report.precision.n) == (2, 4)
    assert (report.exact.k, report.with_invented.k) == (1, 1)


def test_batches_load_by_kind_and_bad_lines_name_their_number(tmp_path: Path) -> None:
    q = tmp_path / "q.jsonl"
    q.write_text(json.dumps({"id": "x", "question": "q?", "domain": "in", "terms": ["a"]}) + "\n", encoding="utf-8")
    assert isinstance(load_fresh_batch(q)[0], FreshQuestion)
    m = tmp_path / "m.jsonl"
    m.write_text(json.dumps({"id": "y", "text": "t", "expect": {}}) + "\n" + "{oops\n", encoding="utf-8")
    with pytest.raises(InputError, match="m.jsonl:2"):
        load_fresh_batch(m)
    bad = tmp_path / "b.jsonl"
    bad.write_text(json.dumps({"id": "z", "question": "q", "domain": "sideways"}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="b.jsonl:1: domain"):
        load_fresh_batch(bad)

"""When to say "the notes do not cover this" instead of guessing.

An extractive answerer always finds *some* sentence; the risk is quoting it for a
question the notes never address. Three corpus-level signals decide: how close the
best chunk is (dense cosine), whether the question's words occur at all (BM25), and
how far the best chunk stands out from the rest (margin). The thresholds are data,
calibrated on the tuning half of the dev set.

A second check is by answer type: a question that asks for a figure (a price, a
version, a date, a count) or for code is declined unless the chosen sentences hold
that kind of thing, because a nearby sentence about TPU costs is no answer to "what is
the price per chip-hour?".
"""

from __future__ import annotations

import re

import numpy as np

from knowledge.qa.answers import Answer, AnswerSentence
from knowledge.qa.domain_gate import in_domain, out_of_domain
from knowledge.qa.intent import Intent
from knowledge.qa.leads import foreign_language
from knowledge.qa.params import AbstainParams
from knowledge.qa.retrieval import Evidence

__all__ = [
    "should_decline", "gate_sure", "too_weak", "kind_reason", "out_of_domain", "declined_answer", "lacks_asked_kind", "refuse_input", "DECLINE_TEXT", "DECLINE_TEXTS",
]

DECLINE_TEXT = (
    "The notes do not cover this question. Try rephrasing it in terms of GPUs, TPUs and your "
    "workload, or ask for a structured recommendation with /recommend (in Slack: /hwbot recommend)."
)
#: Every refusal starts with "The notes do not cover this question" (the contract); the
#: rest says why, when the reason is more specific than weak evidence.
DECLINE_TEXTS = {
    "no_evidence": DECLINE_TEXT,
    "out_of_scope": DECLINE_TEXT,
    "no_figure": (
        "The notes do not cover this question: they state no such figure (price, version, date, count or "
        "measurement). Check the provider's current documentation for exact numbers."
    ),
    "no_code": (
        "The notes do not cover this question: they explain choices and practices but hold no code. "
        "The framework's own documentation has worked examples."
    ),
    "no_answer": "The notes do not cover this question: nothing in them answers it directly. Nearest topic they cover: {nearest}.",
    "off_object": "The notes do not cover this question: they say nothing about {subject}. Nearest topic they cover: {nearest}.",
    "no_question": "The notes do not cover this question: it holds no words to answer. Ask about GPUs, TPUs and your workload.",
    "language": "The notes do not cover this question: they are in English, so please ask in English.",
}


def gate_sure(mode: str, qvec: np.ndarray, evidence: Evidence | None) -> bool:
    """The learned gate is confident the question is ours (hybrid evidence only: what it was fitted on)."""
    return mode == "hybrid" and in_domain(qvec, evidence)


def too_weak(evidence: Evidence, params: AbstainParams, mode: str, lenient: bool, qvec: np.ndarray) -> bool:
    """The evidence is too weak to answer from (:func:`should_decline`), unless the question is in
    scope by what it asks (``lenient``) or the learned gate is sure it is ours: a typo'd or
    jargon-heavy question ("print statments in my jitted fucntion show Traced<ShapedArray> junk")
    scores low on every similarity while the notes answer it."""
    return should_decline(evidence, params, mode) and not lenient and not gate_sure(mode, qvec, evidence)


def kind_reason(intent: str, default: str) -> str:
    """The decline reason of a code or figure request (its text says where to look instead), else ``default``."""
    return {"code": "no_code", "figure": "no_figure"}.get(intent, default)


def should_decline(evidence: Evidence, params: AbstainParams, mode: str = "hybrid") -> bool:
    """True when the evidence is too weak to answer from.

    Hybrid answers when the dense evidence is strong on its own, or moderate and backed
    by either lexical evidence or a clear margin over the rest of the corpus. The
    single-signal modes (for the eval's comparison) each use one threshold.
    """
    if mode == "dense":
        return evidence.top_dense < params.dense_only_min
    if mode == "bm25":
        return evidence.top_bm25 < params.bm25_only_min
    if evidence.top_dense >= params.strong_dense or evidence.top_form >= params.strong_form:
        return False
    if evidence.top_dense < params.min_dense:
        return True
    return evidence.top_bm25 < params.min_bm25 and evidence.margin < params.min_margin


def lacks_asked_kind(intent: Intent, sentences: list[AnswerSentence]) -> bool:
    """True when a figure or code question's chosen sentences hold no figure / code of that kind."""
    pattern = intent.evidence_pattern()
    if pattern is None:
        return False
    return not any(pattern.search(s.text) for s in sentences)


def refuse_input(text: str) -> str | None:
    """A decline reason for input no ask can be read from (only punctuation or emoji; another language)."""
    if not re.search(r"[^\W_]", text) or not re.search(r"[A-Za-z]{2}", text) and not foreign_language(text):
        return "no_question"
    return "language" if foreign_language(text) else None


def declined_answer(
    question: str, notices: list[str] | None = None, *, reason: str = "no_evidence", intent: str = "",
    nearest: str = "", subject: str = "",
) -> Answer:
    """The one shape of a refusal: the notes do not cover it (and why, in one line), and no citations."""
    text = DECLINE_TEXTS.get(reason, DECLINE_TEXT)
    if "{" in text:
        text = text.format(nearest=nearest or "choosing between GPUs and TPUs", subject=subject or "it")
    return Answer(
        question=question,
        answer=text,
        declined=True,
        notices=list(notices or []),
        mode="declined",
        intent=intent,
        decline_reason=reason,
    )

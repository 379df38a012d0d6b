"""When to say "the notes do not cover this" instead of guessing.

An extractive answerer always finds *some* sentence; the risk is quoting it for a
question the notes never address. Three corpus-level signals decide: how close the
best chunk is (dense cosine), whether the question's words occur at all (BM25), and
how far the best chunk stands out from the rest (margin). The thresholds are data,
calibrated on the dev set.
"""

from __future__ import annotations

from knowledge.qa.models import Answer
from knowledge.qa.params import AbstainParams
from knowledge.qa.retrieval import Evidence

__all__ = ["should_decline", "declined_answer", "DECLINE_TEXT"]

DECLINE_TEXT = (
    "The notes do not cover this question. Try rephrasing it in terms of GPUs, TPUs and your "
    "workload, or ask for a structured recommendation with /recommend (in Slack: /hwbot recommend)."
)


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
    if evidence.top_dense >= params.strong_dense:
        return False
    if evidence.top_dense < params.min_dense:
        return True
    return evidence.top_bm25 < params.min_bm25 and evidence.margin < params.min_margin


def declined_answer(question: str, notices: list[str] | None = None) -> Answer:
    """The one shape of a refusal: the notes do not cover it, and no citations."""
    return Answer(question=question, answer=DECLINE_TEXT, declined=True, notices=list(notices or []), mode="declined")

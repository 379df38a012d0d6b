"""Reciprocal Rank Fusion: merge rankings without having to calibrate their scores.

Dense cosine and BM25 scores live on different scales; RRF uses only ranks, which is
why it is robust here. ``k`` (60 by convention) damps the head of each list.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["rrf"]


def rrf(rankings: Sequence[Sequence[int]], *, k: int = 60, weights: Sequence[float] | None = None) -> dict[int, float]:
    """Fuse ranked lists of ids into ``{id: score}``; higher is better.

    ``rankings[i][r]`` is the id at rank ``r`` (0-based) of list ``i``. An id absent
    from a list simply gets nothing from it.
    """
    if weights is None:
        weights = [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError("one weight per ranking")
    scores: dict[int, float] = {}
    for ranking, weight in zip(rankings, weights):
        for rank, doc in enumerate(ranking):
            scores[doc] = scores.get(doc, 0.0) + weight / (k + rank + 1)
    return scores

"""Calibrating the two thresholds families on the TUNING half of the dev set only.

- Abstention (``[abstain]``): a grid search for balanced accuracy (in-domain answered,
  out-of-domain declined) of the decline decision the engine makes from evidence, with
  out-of-scope intents, curated matches and lenient choices taken as the engine takes them.
- Curated FAQ routing (``[curated]``): the (similarity, margin) pair that lets the most
  right curated answers through while a wrong one costs three right ones: a wrong curated
  answer overrides a hybrid answer that would have been fine and reads as authoritative.
Ties take the middle of the best plateau, so the choice is not perched on one question.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from knowledge.evaluation.devset import DevItem
from knowledge.qa.curated import CuratedMatch
from knowledge.qa.observation import Observation, declines, observe
from knowledge.qa.params import AbstainParams
from knowledge.qa.service import QAEngine

__all__ = ["calibrate_abstention", "calibrate_curated", "curated_right"]


@dataclass
class _Seen:
    item: DevItem
    obs: Observation


def _observe(engine: QAEngine, items: list[DevItem]) -> list[_Seen]:
    """Each question through every step of ``ask`` (the engine's own), short of its decisions."""
    return [_Seen(item, observe(engine, item.question)) for item in items]


def curated_right(item: DevItem, match: CuratedMatch) -> bool:
    """A curated answer is right for an in-domain question labelled with the entry itself or
    with the note chunk the entry rests on first (any cited chunk would be too lenient)."""
    if item.domain != "in":
        return False
    primary = match.entry.cites[:1]
    return match.entry.chunk_id in item.relevant or bool(primary and primary[0] in item.relevant)


def _middle(plateau: list[tuple[float, float, float, float]]) -> tuple[float, float, float, float]:
    return sorted(plateau)[len(plateau) // 2]


def calibrate_curated(engine: QAEngine, tune: list[DevItem]) -> tuple[float, float, int, int]:
    """(min_similarity, min_margin, right, wrong) on the tuning half."""
    seen = [s for s in _observe(engine, tune) if s.obs.curated is not None]
    scored = []
    for sim, margin in itertools.product([x / 100 for x in range(55, 96)], [x / 100 for x in range(0, 16)]):
        p = engine.params.curated.model_copy(update={"min_similarity": sim, "min_margin": margin})
        passed = [s for s in seen if s.obs.curated and s.obs.curated.clears(p)]
        right = sum(1 for s in passed if s.obs.curated and curated_right(s.item, s.obs.curated))
        wrong = len(passed) - right
        scored.append((right - 3 * wrong, sim, margin, right, wrong))
    best = max(row[0] for row in scored)
    plateau = [row[1:] for row in scored if row[0] == best]
    # The middle of the plateau in each dimension: the median similarity, then the median
    # margin among the plateau's rows at that similarity.
    sims = sorted({row[0] for row in plateau})
    sim = sims[len(sims) // 2]
    at_sim = sorted(row for row in plateau if row[0] == sim)
    _, margin, right, wrong = at_sim[len(at_sim) // 2]
    return sim, margin, int(right), int(wrong)


def calibrate_abstention(engine: QAEngine, tune: list[DevItem]) -> tuple[AbstainParams, float]:
    """The hybrid abstention thresholds with the best balanced accuracy on the tuning half."""
    seen = _observe(engine, tune)
    params = engine.params
    n_in = sum(1 for s in seen if s.item.domain == "in") or 1
    n_out = sum(1 for s in seen if s.item.domain == "out") or 1
    base = params.abstain
    scored = []
    grid = itertools.product(
        [x / 100 for x in range(30, 56, 2)], [x / 100 for x in range(40, 70, 2)], [0.5, 1.0, 1.5, 2.0, 3.0, 4.0], [0.1, 0.15, 0.2, 1.0]
    )
    for min_dense, strong, bm25, margin in grid:
        if strong < min_dense:
            continue
        p = base.model_copy(update={"min_dense": min_dense, "strong_dense": strong, "min_bm25": bm25, "min_margin": margin})

        def declined(s: _Seen, p: AbstainParams = p) -> bool:
            return declines(engine, s.obs, abstain=p)

        ok_in = sum(1 for s in seen if s.item.domain == "in" and not declined(s))
        ok_out = sum(1 for s in seen if s.item.domain == "out" and (declined(s) or s.obs.intent.name in {"figure", "code"}))
        scored.append(((ok_in / n_in + ok_out / n_out) / 2, (min_dense, strong, bm25, margin)))
    best = max(a for a, _ in scored)
    plateau = [t for a, t in scored if a == best]
    min_dense, strong, bm25, margin = _middle(plateau)
    chosen = base.model_copy(update={"min_dense": min_dense, "strong_dense": strong, "min_bm25": bm25, "min_margin": margin})
    return chosen, best

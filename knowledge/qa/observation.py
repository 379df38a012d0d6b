"""Every step of ``ask`` short of its decisions, for the harnesses that tune those decisions.

Calibration grid-searches the abstention and curated thresholds and ``hwbot fit-gate``
fits the learned gate on what the answerer sees of each question. They must see it exactly
as :meth:`~knowledge.qa.service.QAEngine.ask` does, so :func:`observe` runs the engine's own
steps (hygiene, encoding, intent, retrieval, the curated candidate) and :func:`declines`
is ask's decline decision with the thresholds passed in, not a re-implementation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from knowledge.qa.abstain import gate_sure, too_weak
from knowledge.qa.asks import focus_of
from knowledge.qa.curated import CuratedMatch
from knowledge.qa.intent import Intent
from knowledge.qa.params import AbstainParams, CuratedParams
from knowledge.qa.retrieval import Evidence, Hit, Mode

if TYPE_CHECKING:
    from knowledge.qa.service import QAEngine

__all__ = ["Observation", "declines", "observe"]


@dataclass
class Observation:
    """What :func:`observe` saw of one question, step by step, before any decision."""

    text: str
    notices: list[str]
    qvec: np.ndarray
    intent: Intent
    mode: Mode
    #: the curated entry that could answer it, before the similarity and margin thresholds
    curated: CuratedMatch | None = None
    hits: list[Hit] = field(default_factory=list)
    evidence: Evidence | None = None
    #: in scope by what it asks (:meth:`QAEngine.lenient`)
    lenient: bool = False


def observe(
    engine: QAEngine,
    question: str,
    *,
    mode: Mode = "hybrid",
    query_vector: np.ndarray | None = None,
    complete: bool = True,
    on_step: Callable[[str], object] | None = None,
) -> Observation:
    """Every step of :meth:`QAEngine.ask` before its decisions, in ask's order.

    ``complete=False`` stops after the intent of an out-of-scope question.
    ``on_step(name)`` is called as each step ends (the latency bench times them).
    """
    step = on_step or _no_step
    text, notices = engine.clean(question)
    step("hygiene")
    qvec = engine.encode_query(text) if query_vector is None else np.asarray(query_vector, dtype=np.float32)
    step("encode")
    intent = engine.intents.classify(text, qvec)
    step("intent")
    obs = Observation(text, notices, qvec, intent, mode)
    if intent.name == "out_of_scope" and not complete:
        return obs
    obs.hits, obs.evidence, _ = engine.retrieve(text, mode=mode, qvec=qvec, k=engine.retrieval_depth(intent))
    obs.lenient = engine.lenient(intent, text)
    step("retrieve")
    obs.curated = engine.curated_candidate(qvec, intent, text, mode)
    step("curated")
    return obs


def declines(engine: QAEngine, obs: Observation, abstain: AbstainParams | None = None, curated: CuratedParams | None = None) -> bool:
    """Whether ``ask`` declines what it observed, before composing (thresholds: the engine's by default)."""
    if obs.intent.name == "out_of_scope" and not gate_sure(obs.mode, obs.qvec, obs.evidence):
        return True
    if obs.hits and obs.evidence is not None and engine.out_of_domain(obs.text, obs.qvec, obs.evidence, focus_of(obs.text), obs.mode):
        return True
    if obs.curated is not None and obs.curated.clears(curated or engine.params.curated):
        return False
    if not obs.hits or obs.evidence is None:
        return True
    return too_weak(obs.evidence, abstain or engine.params.abstain, obs.mode, obs.lenient, obs.qvec)


def _no_step(name: str) -> None:
    return None

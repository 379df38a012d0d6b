"""The public entry point: one profile in, one explained and cited recommendation out.

Pure and deterministic: no I/O beyond loading the rule files once, no randomness, and no
torch, NumPy or FAISS (``hwbot recommend`` must stay well under a second). The decision is
:mod:`knowledge.recommend.decision` (gate -> fit -> readiness -> table); the words are
:mod:`knowledge.recommend.explain`; the flips are :mod:`knowledge.recommend.flips`.
The reasoning behind the model is in ``docs/scoring.md``.
"""

from __future__ import annotations

from functools import lru_cache

from knowledge.recommend.decision import Engine, Verdict, engine_for, share
from knowledge.recommend.explain import blockers_for, caveats_for, reasons_for, revisit_for, todo_for, waits_on
from knowledge.recommend.flips import find_flips
from knowledge.recommend.profile import WorkloadProfile
from knowledge.recommend.recommendation import Recommendation
from knowledge.recommend.rules import VERDICTS, RuleSet, load_rules

__all__ = ["shipped_rules", "shipped_engine", "decide_profile", "next_questions", "recommend"]


@lru_cache(maxsize=1)
def shipped_rules() -> RuleSet:
    """The rules in ``knowledge/recommend/rules``, loaded and validated once per process."""
    return load_rules()


def shipped_engine() -> Engine:
    return engine_for(shipped_rules())


def decide_profile(profile: WorkloadProfile, rules: RuleSet | None = None) -> Verdict:
    """The verdict alone (gate, fit, readiness, blockers), without the explanation."""
    return engine_for(rules or shipped_rules()).decide(profile.model_dump())


def next_questions(profile: WorkloadProfile, rules: RuleSet | None = None) -> list[str]:
    """Unknown fields whose answer could change the verdict, most informative first."""
    return engine_for(rules or shipped_rules()).question_ranking(profile.model_dump())


def recommend(profile: WorkloadProfile, rules: RuleSet | None = None) -> Recommendation:
    """One profile, one explained and cited recommendation."""
    rules = rules or shipped_rules()
    engine = engine_for(rules)
    answers = profile.model_dump()
    verdict = engine.decide(answers)
    dist = engine.verdict_distribution(answers)
    questions = engine.question_ranking(answers)
    flips = find_flips(profile, verdict.kind, lambda a: engine.decide(a).kind)
    gate = [b.text for b in verdict.blockers if b.kind == "gate"]
    return Recommendation(
        recommendation=verdict.kind,
        confidence=engine.confidence(answers, verdict.kind),
        scores={v: share(dist[v]) for v in VERDICTS},
        reasons=reasons_for(engine, verdict, answers),
        caveats=caveats_for(rules, verdict, answers, questions),
        flips=flips,
        blocked={"tpu": gate, "gpu_then_tpu": gate} if gate else {},
        fit=verdict.fit,
        readiness=verdict.readiness,
        blockers=blockers_for(rules, verdict),
        todo=todo_for(verdict, answers),
        waits_on=waits_on(verdict, answers),
        revisit=revisit_for(verdict),
        next_questions=questions,
    )

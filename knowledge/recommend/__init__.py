"""The recommendation engine: profile, the decision model as data, engine, explanations, flips, free text,
and the order of the intake's questions.

Pure and torch-free (no numpy or faiss either), so ``hwbot recommend`` starts fast.
The names below load on first use (PEP 562): importing one of them, say the profile
model for a Slack form, does not pull in the free-text reader or the rule files.
It never imports the question-answering package.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from knowledge.recommend.decision import Engine, Signature, Verdict, engine_for
    from knowledge.recommend.explain import (
        blockers_for,
        caveats_for,
        reasons_for,
        revisit_for,
        shown_blockers,
        todo_for,
    )
    from knowledge.recommend.extraction import Extraction, FieldEvidence
    from knowledge.recommend.flips import find_flips
    from knowledge.recommend.profile import FIELD_VALUES, UNKNOWN, WorkloadProfile, load_profile, parse_profile
    from knowledge.recommend.questioning import (
        QuestionsAsked,
        gate_fields,
        intake_order,
        next_field,
        questions_asked,
        settled_verdict,
        stopping_points,
    )
    from knowledge.recommend.recommendation import (
        VERDICT_LABELS,
        BlockerItem,
        FitLevel,
        Flip,
        Reason,
        Recommendation,
        RecommendationKind,
    )
    from knowledge.recommend.recommender import decide_profile, next_questions, recommend, shipped_engine, shipped_rules
    from knowledge.recommend.rules import (
        FIT_LEVELS,
        READINESS,
        VERDICTS,
        Blocker,
        Caveat,
        DecisionParams,
        DefaultReason,
        Factor,
        Far,
        RuleSet,
        chunk_catalog,
        load_rules,
        parse_rule_files,
    )
    from knowledge.recommend.textual import profile_from_text

#: public name -> the module that owns it
_OWNERS: dict[str, str] = {
    "Engine": "knowledge.recommend.decision",
    "Signature": "knowledge.recommend.decision",
    "Verdict": "knowledge.recommend.decision",
    "engine_for": "knowledge.recommend.decision",
    "blockers_for": "knowledge.recommend.explain",
    "caveats_for": "knowledge.recommend.explain",
    "reasons_for": "knowledge.recommend.explain",
    "revisit_for": "knowledge.recommend.explain",
    "shown_blockers": "knowledge.recommend.explain",
    "todo_for": "knowledge.recommend.explain",
    "find_flips": "knowledge.recommend.flips",
    "FIELD_VALUES": "knowledge.recommend.profile",
    "UNKNOWN": "knowledge.recommend.profile",
    "WorkloadProfile": "knowledge.recommend.profile",
    "load_profile": "knowledge.recommend.profile",
    "parse_profile": "knowledge.recommend.profile",
    "QuestionsAsked": "knowledge.recommend.questioning",
    "gate_fields": "knowledge.recommend.questioning",
    "intake_order": "knowledge.recommend.questioning",
    "next_field": "knowledge.recommend.questioning",
    "questions_asked": "knowledge.recommend.questioning",
    "settled_verdict": "knowledge.recommend.questioning",
    "stopping_points": "knowledge.recommend.questioning",
    "VERDICT_LABELS": "knowledge.recommend.recommendation",
    "BlockerItem": "knowledge.recommend.recommendation",
    "FitLevel": "knowledge.recommend.recommendation",
    "Flip": "knowledge.recommend.recommendation",
    "Reason": "knowledge.recommend.recommendation",
    "Recommendation": "knowledge.recommend.recommendation",
    "RecommendationKind": "knowledge.recommend.recommendation",
    "decide_profile": "knowledge.recommend.recommender",
    "next_questions": "knowledge.recommend.recommender",
    "recommend": "knowledge.recommend.recommender",
    "shipped_engine": "knowledge.recommend.recommender",
    "shipped_rules": "knowledge.recommend.recommender",
    "FIT_LEVELS": "knowledge.recommend.rules",
    "READINESS": "knowledge.recommend.rules",
    "VERDICTS": "knowledge.recommend.rules",
    "Blocker": "knowledge.recommend.rules",
    "Caveat": "knowledge.recommend.rules",
    "DecisionParams": "knowledge.recommend.rules",
    "DefaultReason": "knowledge.recommend.rules",
    "Factor": "knowledge.recommend.rules",
    "Far": "knowledge.recommend.rules",
    "RuleSet": "knowledge.recommend.rules",
    "chunk_catalog": "knowledge.recommend.rules",
    "load_rules": "knowledge.recommend.rules",
    "parse_rule_files": "knowledge.recommend.rules",
    "Extraction": "knowledge.recommend.extraction",
    "FieldEvidence": "knowledge.recommend.extraction",
    "profile_from_text": "knowledge.recommend.textual",
}


def __getattr__(name: str) -> Any:
    owner = _OWNERS.get(name)
    if owner is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(owner), name)
    globals()[name] = value  # the next lookup is a plain global
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_OWNERS))


__all__ = [
    "Reason",
    "Flip",
    "BlockerItem",
    "FitLevel",
    "Recommendation",
    "RecommendationKind",
    "VERDICT_LABELS",
    "WorkloadProfile",
    "FIELD_VALUES",
    "UNKNOWN",
    "load_profile",
    "parse_profile",
    "VERDICTS",
    "FIT_LEVELS",
    "READINESS",
    "Factor",
    "Blocker",
    "Far",
    "Caveat",
    "DefaultReason",
    "DecisionParams",
    "RuleSet",
    "chunk_catalog",
    "load_rules",
    "parse_rule_files",
    "Engine",
    "Signature",
    "Verdict",
    "engine_for",
    "shipped_rules",
    "shipped_engine",
    "decide_profile",
    "next_questions",
    "recommend",
    "reasons_for",
    "shown_blockers",
    "blockers_for",
    "todo_for",
    "revisit_for",
    "caveats_for",
    "find_flips",
    "profile_from_text",
    "Extraction",
    "FieldEvidence",
    "gate_fields",
    "intake_order",
    "next_field",
    "settled_verdict",
    "questions_asked",
    "QuestionsAsked",
    "stopping_points",
]

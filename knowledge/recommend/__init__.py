"""The recommendation engine: profile, the decision model as data, engine, explanations, flips, free text,
and the order of the intake's questions.

Pure and torch-free (no numpy or faiss either), so ``hwbot recommend`` starts fast.
It never imports the question-answering package.
"""

from knowledge.recommend.decision import Engine, Signature, Verdict, engine_for
from knowledge.recommend.explain import (
    blockers_for,
    caveats_for,
    reasons_for,
    revisit_for,
    shown_blockers,
    todo_for,
)
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
from knowledge.recommend.textual import Extraction, FieldEvidence, profile_from_text

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

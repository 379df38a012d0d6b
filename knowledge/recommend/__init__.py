"""The recommendation engine: profile, rules as data, scoring, explanations and flips.

Pure and torch-free (no numpy or faiss either), so ``hwbot recommend`` starts fast.
It never imports ``knowledge.qa``.
"""

from knowledge.recommend.explain import (
    caveats_for,
    effect_text,
    reasons_for,
)
from knowledge.recommend.flips import (
    find_flips,
)
from knowledge.recommend.models import (
    VERDICT_LABELS,
    Flip,
    Reason,
    Recommendation,
    RecommendationKind,
)
from knowledge.recommend.profile import (
    FIELD_VALUES,
    UNKNOWN,
    WorkloadProfile,
    load_profile,
    parse_profile,
)
from knowledge.recommend.rules import (
    OPTIONS,
    Caveat,
    DecisionParams,
    Option,
    Rule,
    RuleSet,
    chunk_catalog,
    load_rules,
    parse_rule_files,
)
from knowledge.recommend.scoring import (
    Decision,
    Scorecard,
    confidence,
    decide,
    evaluate,
    recommend,
    score,
    score_answers,
    shipped_rules,
)

__all__ = [
    "Reason",
    "Flip",
    "Recommendation",
    "RecommendationKind",
    "VERDICT_LABELS",
    "WorkloadProfile",
    "FIELD_VALUES",
    "UNKNOWN",
    "load_profile",
    "parse_profile",
    "OPTIONS",
    "Option",
    "Rule",
    "Caveat",
    "DecisionParams",
    "RuleSet",
    "chunk_catalog",
    "load_rules",
    "parse_rule_files",
    "Scorecard",
    "Decision",
    "score",
    "score_answers",
    "decide",
    "confidence",
    "evaluate",
    "recommend",
    "shipped_rules",
    "effect_text",
    "reasons_for",
    "caveats_for",
    "find_flips",
]

"""The scoring engine: a profile in, an explained GPU / TPU / staged recommendation out.

Pure and deterministic: no I/O beyond loading the rule files once, no randomness, and
no torch (``hwbot recommend`` must stay well under a second, and every front end calls
this). The engine is deliberately simple so that its output can be checked by hand:

1. **Score.** Every point rule whose condition holds adds its points to its options.
   Each rule looks at one field, so scores are a sum of per-answer contributions.
   Constraint rules never add points; they *block* options ("blocked by").
2. **Decide** (:func:`decide`), in this order:
   - ``tpu`` when TPU is available and, *even with every unknown answer at its worst
     for TPU*, beats GPU by at least ``clear_margin`` and beats the staged path;
   - ``gpu_then_tpu`` when the staged path is available and outscores staying on GPU
     (exploratory now, heading for large stable training);
   - ``gpu_then_tpu`` when TPU leads GPU but unknown answers could overturn the lead
     (a narrow lead with key answers unknown);
   - ``gpu`` otherwise: forced when TPU is blocked, and also for a narrow TPU lead with
     everything that matters known (a narrow lead does not pay the switching cost).
3. **Explain.** Reasons are the fired rules, largest effect first; their points add
   up exactly to the scores. Caveats come from the caveat rules plus computed ones
   (narrow lead, unknown answers). Flips re-score every other answer.

The reasoning behind the weights is in ``docs/scoring.md``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from knowledge.recommend.models import Recommendation
from knowledge.recommend.profile import FIELD_VALUES, UNKNOWN, WorkloadProfile
from knowledge.recommend.rules import OPTIONS, Rule, RuleSet, load_rules

__all__ = [
    "Scorecard",
    "Decision",
    "score",
    "score_answers",
    "decide",
    "confidence",
    "evaluate",
    "recommend",
    "shipped_rules",
]


@dataclass(frozen=True)
class Scorecard:
    """Raw scores and what produced them, before any decision."""

    scores: dict[str, int]
    #: point rules that fired, in rule-file order
    fired: tuple[Rule, ...]
    #: option -> the constraint rules that block it
    blocked: dict[str, tuple[Rule, ...]]

    def available(self) -> tuple[str, ...]:
        return tuple(o for o in OPTIONS if o not in self.blocked)


@dataclass(frozen=True)
class Decision:
    """The decided option, the branch of the logic that chose it, and the numbers behind it."""

    kind: str
    #: one of: tpu_clear, staged_leads, staged_narrow, gpu_forced, gpu_narrow, gpu
    branch: str
    #: decided score minus the best other available score, floored at 0; inf when forced
    margin: float
    #: TPU's lead over GPU if every unknown answer took its worst value for TPU (-inf: could be blocked)
    worst_lead: float
    #: unknown fields whose answer could lower TPU's lead or rule TPU out
    decisive_unknowns: tuple[str, ...]


@lru_cache(maxsize=1)
def shipped_rules() -> RuleSet:
    """The rules in ``knowledge/rules``, loaded and validated once per process."""
    return load_rules()


def score_answers(answers: Mapping[str, str], rules: RuleSet) -> Scorecard:
    """Add up the points of every firing rule; collect blocks separately."""
    totals = {option: 0 for option in OPTIONS}
    fired: list[Rule] = []
    blocked: dict[str, list[Rule]] = {}
    for rule in rules.rules:
        if not rule.matches(answers):
            continue
        if rule.is_constraint:
            for option in rule.blocks:
                blocked.setdefault(option, []).append(rule)
        else:
            fired.append(rule)
            for option, points in rule.points.items():
                totals[option] += points
    return Scorecard(
        scores=totals,
        fired=tuple(fired),
        blocked={o: tuple(blocked[o]) for o in OPTIONS if o in blocked},
    )


def score(profile: WorkloadProfile, rules: RuleSet) -> Scorecard:
    return score_answers(profile.model_dump(), rules)


@dataclass(frozen=True)
class _Swing:
    """How far one unknown answer could move things against TPU (<= 0), or whether it could block it."""

    against_gpu: int
    against_staged: int
    can_block: bool

    @property
    def decisive(self) -> bool:
        return self.can_block or self.against_gpu < 0 or self.against_staged < 0


def _swing(field: str, rules: RuleSet) -> _Swing:
    """The worst a real answer to ``field`` could do to TPU's leads, by re-scoring that field alone.

    Rules name one field each, so a field's contribution does not depend on the other
    answers and the worst case of several unknown fields is the sum of their worst cases.
    """
    base = score_answers({}, rules)
    worst_g = worst_s = 0
    can_block = False
    for value in FIELD_VALUES[field]:
        if value == UNKNOWN:
            continue
        card = score_answers({field: value}, rules)
        d_tpu = card.scores["tpu"] - base.scores["tpu"]
        worst_g = min(worst_g, d_tpu - (card.scores["gpu"] - base.scores["gpu"]))
        worst_s = min(worst_s, d_tpu - (card.scores["gpu_then_tpu"] - base.scores["gpu_then_tpu"]))
        can_block = can_block or "tpu" in card.blocked
    return _Swing(worst_g, worst_s, can_block)


#: id(rule set) -> (rule set, swings). The rule set is kept so its id cannot be reused;
#: a RuleSet holds dicts, so it cannot be an lru_cache key itself.
_SWING_CACHE: dict[int, tuple[RuleSet, dict[str, _Swing]]] = {}


def _swings(rules: RuleSet) -> dict[str, _Swing]:
    hit = _SWING_CACHE.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    swings = {field: _swing(field, rules) for field in FIELD_VALUES}
    if len(_SWING_CACHE) >= 16:
        _SWING_CACHE.clear()
    _SWING_CACHE[id(rules)] = (rules, swings)
    return swings


def decide(card: Scorecard, unknown_fields: list[str] | tuple[str, ...], rules: RuleSet) -> Decision:
    """Apply the decision logic described in the module docstring."""
    s = card.scores
    gpu, tpu, staged = s["gpu"], s["tpu"], s["gpu_then_tpu"]
    available = card.available()
    swings = _swings(rules)
    unknown = [f for f in unknown_fields if f in swings]
    decisive = tuple(f for f in unknown if swings[f].decisive)
    worst_lead: float = tpu - gpu + sum(swings[f].against_gpu for f in unknown)
    if any(swings[f].can_block for f in unknown):
        worst_lead = -math.inf
    worst_over_staged = tpu - staged + sum(swings[f].against_staged for f in unknown)

    if "tpu" in available and worst_lead >= rules.decision.clear_margin and worst_over_staged > 0:
        kind, branch = "tpu", "tpu_clear"
    elif "gpu_then_tpu" in available and staged > gpu:
        kind, branch = "gpu_then_tpu", "staged_leads"
    elif "tpu" in available and tpu > gpu and decisive:
        kind, branch = "gpu_then_tpu", "staged_narrow"
    elif available == ("gpu",):
        kind, branch = "gpu", "gpu_forced"
    elif "tpu" in available and tpu > gpu:
        kind, branch = "gpu", "gpu_narrow"
    else:
        kind, branch = "gpu", "gpu"

    others = [s[o] for o in available if o != kind]
    margin = math.inf if not others else max(0.0, float(s[kind] - max(others)))
    return Decision(kind, branch, margin, worst_lead, decisive)


def confidence(margin: float, unknown_count: int, rules: RuleSet) -> float:
    """Grows with the margin, shrinks with every unknown answer; rounded for display."""
    p = rules.decision
    growth = 1.0 if math.isinf(margin) else 1.0 - math.exp(-margin / p.confidence_scale)
    value = p.confidence_base + p.confidence_span * growth - p.unknown_penalty * unknown_count
    return round(min(p.confidence_cap, max(p.confidence_floor, value)), 2)


def evaluate_answers(answers: Mapping[str, str], rules: RuleSet) -> tuple[Scorecard, Decision]:
    """Score and decide a mapping of answers (missing fields are unknown)."""
    card = score_answers(answers, rules)
    unknown = [f for f in FIELD_VALUES if answers.get(f, UNKNOWN) == UNKNOWN]
    return card, decide(card, unknown, rules)


def evaluate(profile: WorkloadProfile, rules: RuleSet) -> tuple[Scorecard, Decision]:
    """Score and decide: the whole engine minus the explanation."""
    return evaluate_answers(profile.model_dump(), rules)


def recommend(profile: WorkloadProfile, rules: RuleSet | None = None) -> Recommendation:
    """The public entry point: one profile, one explained and cited recommendation."""
    from knowledge.recommend.explain import caveats_for, reasons_for
    from knowledge.recommend.flips import find_flips

    rules = rules or shipped_rules()
    card, decision = evaluate(profile, rules)
    flips = find_flips(profile, decision.kind, lambda answers: evaluate_answers(answers, rules)[1].kind)
    return Recommendation(
        recommendation=decision.kind,
        confidence=confidence(decision.margin, len(profile.unknown_fields()), rules),
        scores={o: float(card.scores[o]) for o in OPTIONS},
        reasons=reasons_for(card, rules),
        caveats=caveats_for(profile, card, decision, rules, {f.field for f in flips}),
        flips=flips,
        blocked={o: [r.explanation for r in rs] for o, rs in card.blocked.items()},
    )

"""The scoring engine: a profile in, an explained GPU / TPU / staged recommendation out.

Pure and deterministic: no I/O beyond loading the rule files once, no randomness, and
no torch (``hwbot recommend`` must stay well under a second, and every front end calls
this). The engine is deliberately simple so that its output can be checked by hand:

1. **Score.** Every point rule whose condition holds adds its points to its options.
   Constraint rules never add points; they *block* options ("blocked by").
2. **Decide** (:func:`decide`), in this order:
   - ``tpu`` when TPU is available, beats GPU by at least ``clear_margin`` and also
     beats the staged path (a tie goes to the more cautious option);
   - ``gpu_then_tpu`` when the staged path is available and outscores staying on GPU
     (exploratory now, heading for large stable training);
   - ``gpu_then_tpu`` when TPU leads GPU only narrowly and a key answer is unknown;
   - ``gpu`` otherwise (including a narrow TPU lead with everything known: a narrow
     lead does not pay the switching cost).
3. **Explain.** Reasons are the fired rules, largest effect first; their points add
   up exactly to the scores. Caveats come from the caveat rules plus two computed
   ones (narrow lead, unknown answers). Flips re-score every other answer.

The reasoning behind the weights is in ``docs/scoring.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from knowledge.models import Reason, Recommendation
from knowledge.profile import WorkloadProfile
from knowledge.rules import OPTIONS, Rule, RuleSet, load_rules

__all__ = ["Scorecard", "Decision", "score", "decide", "confidence", "evaluate", "recommend", "shipped_rules"]


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
    """The decided option, which branch of the logic chose it, and the margin behind it."""

    kind: str
    #: one of: tpu_clear, staged_leads, staged_narrow, gpu_forced, gpu_narrow, gpu
    branch: str
    #: decided score minus the best other available score, floored at 0; inf when forced
    margin: float
    #: key fields that were unknown (they matter for the staged_narrow branch)
    key_unknowns: tuple[str, ...]


@lru_cache(maxsize=1)
def shipped_rules() -> RuleSet:
    """The rules in ``knowledge/rules``, loaded and validated once per process."""
    return load_rules()


def score(profile: WorkloadProfile, rules: RuleSet) -> Scorecard:
    """Add up the points of every firing rule; collect blocks separately."""
    totals = {option: 0 for option in OPTIONS}
    fired: list[Rule] = []
    blocked: dict[str, list[Rule]] = {}
    for rule in rules.rules:
        if not rule.matches(profile):
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


def decide(card: Scorecard, profile: WorkloadProfile, rules: RuleSet) -> Decision:
    """Apply the decision logic described in the module docstring."""
    params = rules.decision
    s = card.scores
    gpu, tpu, staged = s["gpu"], s["tpu"], s["gpu_then_tpu"]
    available = card.available()
    unknown = set(profile.unknown_fields())
    key_unknowns = tuple(f for f in params.key_fields if f in unknown)

    if "tpu" in available and tpu - gpu >= params.clear_margin and tpu > staged:
        kind, branch = "tpu", "tpu_clear"
    elif "gpu_then_tpu" in available and staged > gpu:
        kind, branch = "gpu_then_tpu", "staged_leads"
    elif "tpu" in available and tpu > gpu and key_unknowns:
        kind, branch = "gpu_then_tpu", "staged_narrow"
    elif available == ("gpu",):
        kind, branch = "gpu", "gpu_forced"
    elif "tpu" in available and tpu > gpu:
        kind, branch = "gpu", "gpu_narrow"
    else:
        kind, branch = "gpu", "gpu"

    others = [s[o] for o in available if o != kind]
    margin = math.inf if not others else max(0.0, float(s[kind] - max(others)))
    return Decision(kind=kind, branch=branch, margin=margin, key_unknowns=key_unknowns)


def confidence(margin: float, unknown_count: int, rules: RuleSet) -> float:
    """Grows with the margin, shrinks with every unknown answer; rounded for display."""
    p = rules.decision
    growth = 1.0 if math.isinf(margin) else 1.0 - math.exp(-margin / p.confidence_scale)
    value = p.confidence_base + p.confidence_span * growth - p.unknown_penalty * unknown_count
    return round(min(p.confidence_cap, max(p.confidence_floor, value)), 2)


def _effect_text(rule: Rule) -> str:
    if rule.is_constraint:
        return "blocks " + ", ".join(rule.blocks)
    return ", ".join(f"{o} {rule.points[o]:+d}" for o in OPTIONS if o in rule.points)


def _weight(rule: Rule) -> tuple[float, int]:
    """Sort key: constraints first (infinite effect), then largest single effect, then total."""
    if rule.is_constraint:
        return (math.inf, 0)
    return (float(max(abs(p) for p in rule.points.values())), sum(abs(p) for p in rule.points.values()))


def reasons_for(card: Scorecard, rules: RuleSet) -> list[Reason]:
    """Every fired rule as a reason, largest effect first (stable on ties).

    All fired rules are listed, not just the top few, so that the reasons' points add up
    exactly to the scores; front ends decide how many to show.
    """
    constraints = [r for option in card.blocked.values() for r in option]
    unique: dict[str, Rule] = {r.id: r for r in [*constraints, *card.fired]}
    ordered = sorted(unique.values(), key=lambda r: _weight(r), reverse=True)
    return [
        Reason(
            factor=f"{rule.condition_text()}: {rule.explanation}",
            effect=_effect_text(rule),
            citations=[rules.label(c) for c in rule.citations],
        )
        for rule in ordered
    ]


def _cite(labels: list[str]) -> str:
    return " (" + "; ".join(labels) + ")" if labels else ""


def caveats_for(
    profile: WorkloadProfile, card: Scorecard, decision: Decision, rules: RuleSet, flip_fields: set[str]
) -> list[str]:
    """Caveat rules that apply to this decision, then the computed caveats about certainty."""
    out = [
        c.text + _cite([rules.label(x) for x in c.citations])
        for c in rules.caveats
        if decision.kind in c.recommended and c.matches(profile)
    ]
    s = card.scores
    lead = s["tpu"] - s["gpu"]
    if decision.branch == "staged_narrow":
        out.append(
            f"TPU leads GPU by only {lead} point(s) while key answers are unknown "
            f"({', '.join(decision.key_unknowns)}): start on GPUs and decide the move once they are known."
        )
    elif decision.branch == "gpu_narrow":
        out.append(
            f"TPU scores {lead} point(s) above GPU, short of the clear margin of "
            f"{rules.decision.clear_margin} that would justify the switching cost; GPUs stay the default."
        )
    unknown = profile.unknown_fields()
    if unknown:
        line = f"{len(unknown)} answer(s) unknown ({', '.join(unknown)}), which lowers the confidence"
        deciding = [f for f in unknown if f in flip_fields]
        if deciding:
            line += f"; answering {', '.join(deciding)} could change the recommendation"
        out.append(line + ".")
    return out


def evaluate(profile: WorkloadProfile, rules: RuleSet) -> tuple[Scorecard, Decision]:
    """Score and decide: the whole engine minus the explanation (flips call this)."""
    card = score(profile, rules)
    return card, decide(card, profile, rules)


def recommend(profile: WorkloadProfile, rules: RuleSet | None = None) -> Recommendation:
    """The public entry point: one profile, one explained and cited recommendation."""
    from knowledge.flips import find_flips

    rules = rules or shipped_rules()
    card, decision = evaluate(profile, rules)
    flips = find_flips(profile, decision.kind, lambda p: evaluate(p, rules)[1].kind)
    return Recommendation(
        recommendation=decision.kind,  # type: ignore[arg-type]
        confidence=confidence(decision.margin, len(profile.unknown_fields()), rules),
        scores={o: float(card.scores[o]) for o in OPTIONS},
        reasons=reasons_for(card, rules),
        caveats=caveats_for(profile, card, decision, rules, {f.field for f in flips}),
        flips=flips,
        blocked={o: [r.explanation for r in rs] for o, rs in card.blocked.items()},
    )


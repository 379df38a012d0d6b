"""Turning a scorecard and a decision into reasons and caveats people can check.

Reasons are *all* fired rules (constraints first, then by size of effect), so their
points add up exactly to the scores: nothing is hidden, and front ends decide how many
to show. Each reason and caveat carries the citation labels of the chunks it rests on.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from knowledge.recommend.models import Reason
from knowledge.recommend.profile import WorkloadProfile
from knowledge.recommend.rules import OPTIONS, Rule, RuleSet

if TYPE_CHECKING:
    from knowledge.recommend.scoring import Decision, Scorecard

__all__ = ["effect_text", "reasons_for", "caveats_for"]


def effect_text(rule: Rule) -> str:
    """``gpu +3, gpu_then_tpu +2`` or ``blocks tpu, gpu_then_tpu``: machine-readable on purpose."""
    if rule.is_constraint:
        return "blocks " + ", ".join(rule.blocks)
    return ", ".join(f"{o} {rule.points[o]:+d}" for o in OPTIONS if o in rule.points)


def _weight(rule: Rule) -> tuple[float, int]:
    """Sort key: constraints first (they decide alone), then largest single effect, then total."""
    if rule.is_constraint:
        return (math.inf, 0)
    return (float(max(abs(p) for p in rule.points.values())), sum(abs(p) for p in rule.points.values()))


def reasons_for(card: "Scorecard", rules: RuleSet) -> list[Reason]:
    """Every fired rule as a reason, largest effect first (rule-file order on ties)."""
    constraints = [r for rs in card.blocked.values() for r in rs]
    unique: dict[str, Rule] = {r.id: r for r in [*constraints, *card.fired]}
    ordered = sorted(unique.values(), key=_weight, reverse=True)
    return [
        Reason(
            factor=f"{rule.condition_text()}: {rule.explanation}",
            effect=effect_text(rule),
            citations=[rules.label(c) for c in rule.citations],
        )
        for rule in ordered
    ]


def _cite(labels: list[str]) -> str:
    return " (" + "; ".join(labels) + ")" if labels else ""


def caveats_for(
    profile: WorkloadProfile,
    card: "Scorecard",
    decision: "Decision",
    rules: RuleSet,
    flip_fields: set[str],
) -> list[str]:
    """Caveat rules that apply to this decision, then computed caveats about certainty."""
    answers = profile.model_dump()
    out = [
        c.text + _cite([rules.label(x) for x in c.citations])
        for c in rules.caveats
        if decision.kind in c.recommended and c.matches(answers)
    ]
    lead = card.scores["tpu"] - card.scores["gpu"]
    if decision.branch == "staged_narrow":
        out.append(
            f"TPU leads GPU by {lead} point(s), but unknown answers ({', '.join(decision.decisive_unknowns)}) "
            "could overturn that lead: start on GPUs and decide the move once they are known."
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

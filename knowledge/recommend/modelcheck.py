"""The structural checks that make the decision monotone by construction.

Run at load on every rule set (a model that fails one is refused with a ``RuleError``):

* ``[order]`` lists, for every profile field, exactly its real values, best for a TPU first;
* every real answer has exactly one factor, and fit points never rise down the order and
  end at 0 (the worst answer adds nothing; an unknown one adds 0 or its expected points,
  ``[decision] unknown_fit``, and is not a step in the order);
* every blocker, far and caveat-for-``tpu`` condition is checked against the order: a
  blocker or far condition names a *tail* of it (the worst values), so a worse answer can
  only add blockers; a caveat shown with ``tpu`` never fires on an answer that blocks;
* the decision table covers every (fit, readiness) pair, never moves toward TPU as
  readiness worsens and never moves away from TPU as fit rises.

Together these make ``decide`` monotone in every field; ``tests/engine`` checks the
consequence exhaustively over all 6,144,000 profiles.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from knowledge.recommend.profile import FIELD_VALUES, UNKNOWN
from knowledge.recommend.recommendation import VERDICTS

if TYPE_CHECKING:
    from knowledge.recommend.rule_schema import RuleSet

__all__ = ["check_model"]

_FITS = ("low", "medium", "high")
_READINESS = ("ready", "pending", "fixable", "far")


def _is_tail(values: tuple[str, ...], order: tuple[str, ...]) -> bool:
    return set(values) == set(order[len(order) - len(set(values)):])


def _check_order(rules: "RuleSet") -> str | None:
    for field, values in FIELD_VALUES.items():
        real = [v for v in values if v != UNKNOWN]
        if sorted(rules.order.get(field, ())) != sorted(real) or len(rules.order[field]) != len(real):
            return f"[order] {field} must list exactly {', '.join(real)}"
    extra = set(rules.order) - set(FIELD_VALUES)
    return f"[order] names unknown field(s) {', '.join(sorted(extra))}" if extra else None


def _check_factors(rules: "RuleSet") -> str | None:
    for field, order in rules.order.items():
        points = []
        for value in order:
            owners = [f.id for f in rules.factors if f.field == field and value in f.when[field]]
            if len(owners) != 1:
                return f"answer {field} = {value} needs exactly one factor, has {len(owners) or 'none'} {owners or ''}".strip()
            factor = rules.factor_for(field, value)
            assert factor is not None
            points.append(factor.fit)
        if any(a < b for a, b in zip(points, points[1:], strict=False)) or points[-1] != 0:
            return f"factor fit points for {field} must not rise down its order and must end at 0 (got {points})"
    return None


def _check_conditions(rules: "RuleSet") -> str | None:
    blocker_ids = {b.id for b in rules.blockers}
    if not any(b.kind == "gate" for b in rules.blockers):
        return "no blocker of kind 'gate' (where TPUs cannot run at all)"
    for entry in (*rules.blockers, *rules.fars):
        for field, values in entry.when.items():
            if not _is_tail(values, rules.order[field]):
                return f"{entry.id}: condition on {field} must name its worst values (a tail of {list(rules.order[field])})"
    for far in rules.fars:
        missing = [b for b in far.all if b not in blocker_ids]
        if missing:
            return f"{far.id}: names unknown blocker(s) {', '.join(missing)}"
    blocking = {(f, v) for b in rules.blockers for f, vs in b.when.items() if len(b.when) == 1 for v in vs}
    for caveat in rules.caveats:
        if "tpu" in caveat.recommended:
            hit = [f"{f} = {v}" for f, vs in caveat.when.items() for v in vs if (f, v) in blocking]
            if hit:
                return f"{caveat.id}: shown with tpu, but {', '.join(hit)} is a blocker (a tpu verdict cannot have it)"
    return None


def _check_table(rules: "RuleSet") -> str | None:
    rank: dict[str, int] = {v: i for i, v in enumerate(VERDICTS)}
    for fit in _FITS:
        for readiness in _READINESS:
            if (fit, readiness) not in rules.table:
                return f"[[table]] has no verdict for fit {fit}, readiness {readiness}"
    for fit in _FITS:
        ranks = [rank[rules.table[(fit, r)]] for r in _READINESS]
        if any(a < b for a, b in zip(ranks, ranks[1:], strict=False)):
            return f"[[table]] fit {fit}: a worse readiness must never move the verdict toward TPU"
    for readiness in _READINESS:
        ranks = [rank[rules.table[(f, readiness)]] for f in _FITS]
        if any(a > b for a, b in zip(ranks, ranks[1:], strict=False)):
            return f"[[table]] readiness {readiness}: a higher fit must never move the verdict away from TPU"
    return None


def check_model(rules: "RuleSet") -> str | None:
    """The first structural problem of a rule set, or None when it is sound."""
    for check in (_check_order, _check_factors, _check_conditions, _check_table):
        problem = check(rules)
        if problem:
            return problem
    if rules.decision.fit_high > sum(
        max(f.fit for f in rules.factors if f.field == field) for field in rules.order
    ):
        return "[decision] fit_high is above the highest fit any profile can reach"
    return None

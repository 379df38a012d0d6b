"""Turning a verdict into what people read: reasons for and against, blockers, a to-do list, caveats.

Every known answer becomes one reason, in the words of its factor, with its citations and a
``direction``: *for* the verdict or *against* it. A ``gpu`` verdict always carries the
cited GPU default, so even an empty profile is explained. Blockers are listed once (a
narrower blocker on the same field replaces a broader one: critical kernels replace "some
kernels", a closed gate replaces "move to Google Cloud"); a ``gpu_then_tpu`` verdict turns
them into ordered steps. Imports only the engine's types: no cycle with :mod:`scoring`.
"""

from __future__ import annotations

from collections.abc import Mapping

from knowledge.recommend.decision import Engine, Verdict
from knowledge.recommend.profile import FIELD_VALUES, UNKNOWN
from knowledge.recommend.recommendation import BlockerItem, Reason
from knowledge.recommend.rules import Blocker, RuleSet

__all__ = ["reasons_for", "shown_blockers", "blockers_for", "todo_for", "waits_on", "revisit_for", "caveats_for"]


def _direction(verdict: Verdict, leans: str, blocks: bool) -> str:
    if verdict.kind == "gpu_then_tpu":
        return "for" if leans == "tpu" or blocks else "against"
    return "for" if leans == verdict.kind else "against"


def _effect(engine: Engine, verdict: Verdict, field: str, value: str, leans: str) -> tuple[str, bool, str]:
    """The machine-readable effect, whether the answer blocks a TPU, and the effect in words."""
    fired = [b for b in shown_blockers(verdict) if field in b.when and value in b.when[field]]
    if any(b.kind == "gate" for b in fired):
        return "gate: no TPU here", True, "rules TPUs out here"
    if fired:
        far_ids = {blocker for far in verdict.fars for blocker in far.all}
        if any(b.kind == "far" for b in fired):
            words = "too far from a TPU to plan for now"
        elif any(b.id in far_ids for b in fired):
            words = "with the other blockers, too far from a TPU for now"
        else:
            words = "to resolve before a TPU (" + ", ".join(dict.fromkeys(b.effort for b in fired)) + ")"
        return "blocker: " + ", ".join(b.id for b in fired), True, words
    points = engine.fit[field][value]
    fit_field = any(engine.fit[field][v] for v in engine.rules.order[field])
    if not fit_field:
        words = "ready for a TPU on this point" if leans == "tpu" else "no blocker, but easier on GPUs"
        return "readiness: no blocker", False, words
    return f"fit +{points}", False, _FIT_WORDS[min(points, len(_FIT_WORDS) - 1)]


#: Fit points in words: how strongly an answer makes the workload a TPU workload.
_FIT_WORDS = ("does not make this a TPU workload", "a slight pull toward a TPU", "a pull toward a TPU",
              "a pull toward a TPU", "a strong pull toward a TPU")


def reasons_for(engine: Engine, verdict: Verdict, answers: Mapping[str, str]) -> list[Reason]:
    """One reason per known answer, ``for`` the verdict first, the biggest effects first."""
    rules = engine.rules
    rows: list[tuple[int, int, Reason]] = []
    for index, field in enumerate(FIELD_VALUES):
        value = answers.get(field, UNKNOWN)
        factor = rules.factor_for(field, value) if value != UNKNOWN else None
        if factor is None:
            continue
        effect, blocks, role = _effect(engine, verdict, field, value, factor.leans)
        direction = _direction(verdict, factor.leans, blocks)
        weight = 100 if effect.startswith("gate") else 50 if blocks else engine.fit[field][value]
        reason = Reason(
            factor=f"{field} = {value}: {factor.explanation}",
            effect=effect,
            citations=[rules.label(c) for c in factor.citations],
            direction=direction,
            role=role,
        )
        rows.append((0 if direction == "for" else 1, -weight * 100 + index, reason))
    reasons = [r for _, _, r in sorted(rows, key=lambda t: (t[0], t[1]))]
    if verdict.kind == "gpu":
        default = rules.default_reason
        reasons.insert(
            sum(1 for r in reasons if r.direction == "for"),
            Reason(factor=f"default: {default.explanation}", effect="default",
                   citations=[rules.label(c) for c in default.citations], direction="for",
                   role="the default when nothing rules GPUs out"),
        )
    return reasons


def shown_blockers(verdict: Verdict) -> list[Blocker]:
    """The fired blockers, minus those a narrower one on the same field replaces."""
    fired = list(verdict.blockers)
    gate = any(b.kind == "gate" for b in fired)

    def replaced(b: Blocker) -> bool:
        if gate and b.kind != "gate" and set(b.when) <= {"cloud"}:
            return True
        return any(
            other is not b and set(other.when) == set(b.when)
            and all(set(other.when[f]) < set(b.when[f]) or set(other.when[f]) == set(b.when[f]) for f in b.when)
            and any(set(other.when[f]) < set(b.when[f]) for f in b.when)
            for other in fired
        )

    return [b for b in fired if not replaced(b)]


def blockers_for(rules: RuleSet, verdict: Verdict) -> list[BlockerItem]:
    return [
        BlockerItem(id=b.id, text=b.text, effort=b.effort, citations=[rules.label(c) for c in b.citations])
        for b in shown_blockers(verdict)
    ]


def todo_for(verdict: Verdict, answers: Mapping[str, str]) -> list[str]:
    """The ordered steps of a staged verdict: each blocker, then the unknowns that could block."""
    if verdict.kind != "gpu_then_tpu":
        return []
    steps = [f"{b.text} (effort: {b.effort})" for b in shown_blockers(verdict)]
    asked: set[tuple[str, ...]] = set()
    for b in verdict.possible:  # rank order; one confirmation per unknown field set
        fields = tuple(f for f in b.when if answers.get(f, UNKNOWN) == UNKNOWN)
        if not fields or fields in asked:
            continue
        asked.add(fields)
        values = " or ".join(v.replace("_", " ") for f in fields for v in b.when[f])
        names = " and ".join(f.replace("_", " ") for f in fields)
        steps.append(f"Confirm the {names} (not answered yet): if it is {values}, then: {b.text}")
    steps.append("Then port and validate on a small TPU slice before moving the main workload.")
    return steps


def waits_on(verdict: Verdict, answers: Mapping[str, str]) -> list[str]:
    """The unknown fields a ``pending`` verdict waits on: no stated answer blocks a TPU, but one
    of these, unsaid, could. A team that said everything else is told what to confirm, not that
    its case is weak."""
    if verdict.readiness != "pending":
        return []
    fields = (f for b in verdict.possible for f in b.when if answers.get(f, UNKNOWN) == UNKNOWN)
    return list(dict.fromkeys(fields))


def revisit_for(verdict: Verdict) -> list[str]:
    """What would reopen a GPU verdict whose workload fits a TPU but whose blockers are too far."""
    if verdict.kind != "gpu" or verdict.fit == "low":
        return []
    out = [far.revisit for far in verdict.fars]
    if verdict.readiness == "gated":
        out.append("Revisit if this workload could run on Google Cloud alone.")
    return list(dict.fromkeys(out))


def _cite(labels: list[str]) -> str:
    return " (" + "; ".join(labels) + ")" if labels else ""


def caveats_for(rules: RuleSet, verdict: Verdict, answers: Mapping[str, str], next_questions: list[str]) -> list[str]:
    """Caveat rules for this verdict, the revisit notes, then one line about the unknown answers."""
    out = [
        c.text + _cite([rules.label(x) for x in c.citations])
        for c in rules.caveats
        if verdict.kind in c.recommended and c.matches(answers)
    ]
    out += revisit_for(verdict)
    unknown = [f for f in FIELD_VALUES if answers.get(f, UNKNOWN) == UNKNOWN]
    if unknown:
        line = f"{len(unknown)} answer(s) unknown ({', '.join(unknown)})"
        if next_questions:
            line += f"; answering {', '.join(next_questions)} could change the recommendation"
        else:
            line += "; none of them could change the recommendation"
        out.append(line + ".")
    return out

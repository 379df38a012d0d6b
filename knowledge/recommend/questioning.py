"""Which question to ask next, when to stop, and how many questions the adaptive intake asks.

The intake (``bot.intake``) only talks; the choice of question is a decision about the
verdict, so it lives here, beside the engine it reads:

* the **gate** comes first: the fields named by ``kind = "gate"`` blockers (today ``cloud``).
  One answer there (multi-cloud, on-prem) settles ``gpu`` with certainty, and every other
  answer changes what the rest of the questions are worth;
* then the unknown field whose answer is expected to leave the least uncertainty about
  the verdict: :meth:`Engine.question_ranking` (expected entropy), reused, not redone;
* the dialog **stops** when the verdict is settled: every completion of the unknown
  answers gives the same verdict (the engine's distribution has one non-zero entry).

:func:`questions_asked` measures the policy over every fully known profile by walking its
decision tree: which question comes next depends only on the answers so far, so each leaf
stands for all the profiles that share its answers, weighted by how many they are.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from math import prod

from knowledge.recommend.decision import Engine
from knowledge.recommend.profile import FIELD_VALUES, UNKNOWN

__all__ = ["gate_fields", "intake_order", "settled_verdict", "next_field", "QuestionsAsked", "questions_asked",
           "stopping_points"]


def gate_fields(engine: Engine) -> tuple[str, ...]:
    """Fields named by a gate blocker, in contract order: asked before anything else."""
    named = {f for b, _ in engine.blocker_masks if b.kind == "gate" for f in b.when}
    return tuple(f for f in FIELD_VALUES if f in named)


def intake_order(engine: Engine) -> tuple[str, ...]:
    """The a-priori order: gate first, then the ranking of the empty profile, then the rest.

    A form that cannot adapt per answer (the Slack modal) uses this order; the dialog uses
    it for questions that no longer matter to the verdict (when the person asks for them).
    """
    gates = gate_fields(engine)
    ranked = [f for f in engine.question_ranking({}) if f not in gates]
    rest = [f for f in FIELD_VALUES if f not in gates and f not in ranked]
    return (*gates, *ranked, *rest)


def settled_verdict(engine: Engine, answers: Mapping[str, str]) -> str | None:
    """The verdict if no completion of the unknown answers can change it, else None."""
    live = [kind for kind, p in engine.verdict_distribution(answers).items() if p > 0.0]
    return live[0] if len(live) == 1 else None


def next_field(
    engine: Engine, answers: Mapping[str, str], asked: Collection[str], *, exhaustive: bool = False
) -> str | None:
    """The field to ask next, or None when no question left could change the verdict.

    ``asked`` holds every field already asked or answered (a skipped field counts: it is
    not asked twice). With ``exhaustive`` the questions that cannot change the verdict are
    asked too, in :func:`intake_order`, once the informative ones are exhausted.
    """
    for f in gate_fields(engine):
        if f not in asked:
            return f
    for f in engine.question_ranking(answers):
        if f not in asked:
            return f
    if exhaustive:
        return next((f for f in intake_order(engine) if f not in asked), None)
    return None


@dataclass(frozen=True)
class QuestionsAsked:
    """How many questions the adaptive intake asks over every fully known profile."""

    profiles: int
    mean: float
    worst: int
    #: number of questions -> how many profiles are asked exactly that many
    histogram: dict[int, int]


def stopping_points(engine: Engine) -> Iterator[tuple[dict[str, str], int]]:
    """Every place the intake stops for a person who answers everything and declines the rest.

    Yields the answers given (a leaf of the decision tree) and how many fully known profiles
    end there: the product of the value counts of the fields never asked. The leaves
    partition all fully known profiles.
    """
    values = {f: tuple(v for v in vs if v != UNKNOWN) for f, vs in FIELD_VALUES.items()}

    def walk(answers: dict[str, str]) -> Iterator[tuple[dict[str, str], int]]:
        f = next_field(engine, answers, answers)
        if f is None:
            yield dict(answers), prod(len(values[g]) for g in FIELD_VALUES if g not in answers)
            return
        for v in values[f]:
            answers[f] = v
            yield from walk(answers)
            del answers[f]

    yield from walk({})


def questions_asked(engine: Engine) -> QuestionsAsked:
    """Simulate the intake for every fully known profile (every field answered, none skipped).

    The person answers each question with their profile's value and declines the offer to
    answer the rest. Walks the decision tree (:func:`stopping_points`) rather than the
    profiles, so the whole measure takes about a second.
    """
    histogram: dict[int, int] = {}
    for answers, weight in stopping_points(engine):
        histogram[len(answers)] = histogram.get(len(answers), 0) + weight
    total = sum(histogram.values())
    mean = sum(k * n for k, n in histogram.items()) / total
    return QuestionsAsked(profiles=total, mean=mean, worst=max(histogram), histogram=dict(sorted(histogram.items())))

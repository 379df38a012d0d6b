"""How many questions the adaptive intake asks, and that stopping early never changes the verdict.

The figures are measured over all 279,936 fully known profiles by walking the decision
tree (``stopping_points``); the walk is cross-checked against a profile-by-profile
simulation of the policy, and every stop is checked against every completion of the
answers it never asked.
"""

from __future__ import annotations

import itertools
import re
from math import prod
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from knowledge.recommend.profile import FIELD_VALUES, UNKNOWN, parse_profile
from knowledge.recommend.questioning import (
    gate_fields,
    intake_order,
    next_field,
    questions_asked,
    settled_verdict,
    stopping_points,
)
from knowledge.recommend.recommender import recommend, shipped_engine

ENGINE = shipped_engine()
VALUES = {f: tuple(v for v in vs if v != UNKNOWN) for f, vs in FIELD_VALUES.items()}
ALL_PROFILES = prod(len(v) for v in VALUES.values())
LEAVES = {frozenset(answers.items()): weight for answers, weight in stopping_points(ENGINE)}
DOCS = Path(__file__).resolve().parents[2] / "docs" / "scoring.md"


def simulate(profile: dict[str, str]) -> dict[str, str]:
    """The answers the intake collects from a person with this full profile who declines the rest."""
    answers: dict[str, str] = {}
    while (f := next_field(ENGINE, answers, answers)) is not None:
        assert f not in answers, f"{f} asked twice"
        answers[f] = profile[f]
    return answers


def test_mean_and_worst_questions_asked() -> None:
    stats = questions_asked(ENGINE)
    assert ALL_PROFILES == 279_936 and stats.profiles == ALL_PROFILES
    assert sum(stats.histogram.values()) == ALL_PROFILES
    assert stats.mean <= 5.0, stats
    # Half the profiles are settled by the gate alone (multi-cloud or on-prem), and some
    # need every question: the verdict of a borderline profile hangs on its last answer.
    assert stats.histogram[1] == ALL_PROFILES // 2
    assert stats.worst == 11 and stats.histogram[11] > 0
    assert min(stats.histogram) == 1


def test_the_figures_in_the_docs_are_the_measured_ones() -> None:
    stats = questions_asked(ENGINE)
    text = DOCS.read_text(encoding="utf-8")
    assert re.search(rf"mean\D+{stats.mean:.2f} questions", text), "docs/scoring.md must state the measured mean"
    assert f"worst case is {stats.worst}" in text


def test_the_leaves_partition_every_full_profile() -> None:
    assert sum(LEAVES.values()) == ALL_PROFILES
    for leaf in LEAVES:
        answers = dict(leaf)
        assert next(iter(gate_fields(ENGINE))) in answers  # the gate is always asked
        unasked = [f for f in FIELD_VALUES if f not in answers]
        assert LEAVES[leaf] == prod(len(VALUES[f]) for f in unasked)


def test_stopping_never_changes_the_verdict_for_any_completion() -> None:
    """Exhaustive: at every stop, every completion of the unasked fields keeps the verdict."""
    checked = 0
    for leaf in LEAVES:
        answers = dict(leaf)
        kind = ENGINE.decide(answers).kind
        assert settled_verdict(ENGINE, answers) == kind
        unasked = [f for f in FIELD_VALUES if f not in answers]
        for combo in itertools.product(*(VALUES[f] for f in unasked)):
            full = {**answers, **dict(zip(unasked, combo))}
            assert ENGINE.decide(full).kind == kind, (answers, full)
            checked += 1
    assert checked == ALL_PROFILES


def test_the_recommendation_at_a_stop_is_certain() -> None:
    """What the person is shown at a stop: the settled verdict with confidence 1.0."""
    for leaf in list(LEAVES)[::40]:
        answers = dict(leaf)
        rec = recommend(parse_profile(answers))
        assert rec.recommendation == settled_verdict(ENGINE, answers)
        assert rec.confidence == 1.0 and rec.next_questions == []


@settings(max_examples=400, deadline=None)
@given(st.fixed_dictionaries({f: st.sampled_from(v) for f, v in VALUES.items()}))
def test_profile_by_profile_simulation_matches_the_tree(profile: dict[str, str]) -> None:
    asked = simulate(profile)
    assert frozenset(asked.items()) in LEAVES  # the walk and the per-profile policy agree
    assert list(asked)[0] == gate_fields(ENGINE)[0]
    assert ENGINE.decide(asked).kind == ENGINE.decide(profile).kind


def test_each_question_is_the_engines_most_informative() -> None:
    """After the gate, the next question is always the head of the engine's own ranking."""
    for leaf in list(LEAVES)[::25]:
        answers: dict[str, str] = {}
        full = dict(leaf)
        order = simulate({**{f: VALUES[f][0] for f in FIELD_VALUES}, **full})
        for f in order:
            if f not in gate_fields(ENGINE):
                assert ENGINE.question_ranking(answers)[0] == f
            answers[f] = full.get(f, VALUES[f][0])


def test_the_a_priori_order_starts_with_the_gate_and_covers_every_field() -> None:
    order = intake_order(ENGINE)
    assert order[0] == "cloud" and gate_fields(ENGINE) == ("cloud",)
    assert sorted(order) == sorted(FIELD_VALUES)
    ranked = [f for f in ENGINE.question_ranking({}) if f != "cloud"]
    assert list(order[1 : 1 + len(ranked)]) == ranked

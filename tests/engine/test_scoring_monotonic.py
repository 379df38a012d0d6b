"""Monotonicity over the whole profile space: all 6,144,000 profiles, through the real engine.

The engine decides from a profile's *signature*: the (capped) sum of the fit points of the
known answers, the OR of their blocker atoms, and the OR of the atoms the unknown answers
could add (``Engine.signature``). Each answer's contribution is independent of the others,
so the profiles of the space group by the signature of their other ten answers. For every
field, the test builds those groups (with how many profiles each stands for), adds each of
the field's values exactly as ``Engine.signature`` does, and asks ``Engine.decide_signature``
(the engine's own memoized decision) for the verdict. Counting the group sizes proves that
every one of the 6,144,000 profiles was decided, for every field.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from knowledge.recommend.decision import Engine, Signature
from knowledge.recommend.profile import FIELD_VALUES, UNKNOWN, WorkloadProfile
from knowledge.recommend.recommender import recommend, shipped_engine

RANK = {"gpu": 0, "gpu_then_tpu": 1, "tpu": 2}
SPACE = math.prod(len(v) for v in FIELD_VALUES.values())


def _contribution(engine: Engine, field: str, value: str) -> tuple[int, int, int, int]:
    """(fit, atoms, could, expected fit) one answer adds, as ``Engine.signature`` adds it."""
    if value == UNKNOWN:
        return (0, 0, engine.could[field], engine.guess[field])
    return (engine.fit[field][value], engine.atoms[field][value], 0, 0)


def _signature(cap: int, fit: int, atoms: int, could: int, guess: int) -> Signature:
    fit = min(cap, fit)
    return (fit, atoms, could & ~atoms, min(guess, cap - fit))


def _contexts(engine: Engine, skip: str) -> dict[Signature, int]:
    """Signatures of the other ten answers, with the number of profiles behind each.

    Folded exactly as ``Engine.signature`` folds answers: fit added and capped, atoms
    OR-ed, the atoms unknown answers could add kept only beyond the known ones, and the
    expected fit of the unknown answers added and capped. Keys are packed into one int while
    folding (guess, fit, atoms, could: 16 bits each) for speed.
    """
    cap = engine.rules.decision.fit_high
    groups: dict[int, int] = {0: 1}
    for field, values in FIELD_VALUES.items():
        if field == skip:
            continue
        parts = [_contribution(engine, field, value) for value in values]
        nxt: dict[int, int] = {}
        get = nxt.get
        for key, n in groups.items():
            guess, fit, atoms, could = key >> 48, (key >> 32) & 0xFFFF, (key >> 16) & 0xFFFF, key & 0xFFFF
            for df, da, dc, dg in parts:
                a = atoms | da
                k = (min(cap, guess + dg) << 48) | (min(cap, fit + df) << 32) | (a << 16) | ((could | dc) & ~a)
                nxt[k] = get(k, 0) + n
        groups = nxt
    return {((k >> 32) & 0xFFFF, (k >> 16) & 0xFFFF, k & 0xFFFF, k >> 48): n for k, n in groups.items()}


def test_space_size_is_the_documented_one() -> None:
    assert SPACE == 6_144_000


@pytest.mark.slow  # the whole profile space
def test_no_worse_answer_ever_moves_the_verdict_toward_tpu_over_all_profiles() -> None:
    engine = shipped_engine()
    cap = engine.rules.decision.fit_high
    for field, values in FIELD_VALUES.items():
        order = engine.rules.order[field]  # best for a TPU first
        covered = 0
        for (fit, atoms, could, guess), n in _contexts(engine, field).items():
            covered += n * len(values)
            ranks = []
            for value in (*order, UNKNOWN):
                df, da, dc, dg = _contribution(engine, field, value)
                verdict = engine.decide_signature(_signature(cap, fit + df, atoms | da, could | dc, guess + dg))
                if verdict.kind == "tpu":
                    assert not verdict.blockers and not verdict.possible, (field, value, verdict)
                ranks.append(RANK[verdict.kind])
            known = ranks[:-1]
            assert all(a >= b for a, b in zip(known, known[1:], strict=False)), (field, order, known)
        assert covered == SPACE, (field, covered)


profiles = st.fixed_dictionaries({f: st.sampled_from(v) for f, v in FIELD_VALUES.items()}).map(
    lambda answers: WorkloadProfile(**answers)
)


@settings(max_examples=300, deadline=None)
@given(profiles)
def test_recommend_decides_exactly_what_the_signature_decides(profile: WorkloadProfile) -> None:
    """The check above walks signatures; ``recommend`` must decide through the same ones."""
    engine = shipped_engine()
    cap = engine.rules.decision.fit_high
    fit = atoms = could = guess = 0
    for field in FIELD_VALUES:
        df, da, dc, dg = _contribution(engine, field, getattr(profile, field))
        fit, atoms, could, guess = fit + df, atoms | da, could | dc, guess + dg
    signature = _signature(cap, fit, atoms, could, guess)
    assert signature == engine.signature(profile.model_dump())
    table = engine.decide_signature(signature).kind
    decided = recommend(profile).recommendation
    if profile.unknown_fields():
        # the table's verdict, kept within the medians of the completions, never raised to tpu
        dist = engine.verdict_distribution(profile.model_dump())
        ranks = [RANK[k] for k, p in dist.items() if p > 0]
        assert min(ranks) <= RANK[decided] <= max(ranks)
        assert decided != "tpu" or table == "tpu"
    else:
        assert decided == table


def _worse_pairs(engine: Engine, answers: dict[str, str]) -> list[tuple[dict[str, str], dict[str, str]]]:
    """(better, worse) profiles differing in one answer, for every field and adjacent pair of its order."""
    pairs = []
    for field in FIELD_VALUES:
        order = engine.rules.order[field]
        for better, worse in zip(order, order[1:], strict=False):
            pairs.append(({**answers, field: better}, {**answers, field: worse}))
    return pairs


def test_the_median_clamp_of_partial_profiles_is_monotone_on_a_large_sample() -> None:
    """``Engine.decide`` adds the median clamp to the table; walk 4,000 seeded partial profiles.

    The exhaustive walk above covers the table; the clamp reads the completion distribution,
    which the signature walk does not carry, so it is checked here on every field's every
    adjacent pair of answers, with the other ten drawn at random (unknown included).
    """
    import random

    engine = shipped_engine()
    rng = random.Random(12)
    checked = 0
    for _ in range(4000):
        answers = {f: rng.choice(v) for f, v in FIELD_VALUES.items()}
        for better, worse in _worse_pairs(engine, answers):
            assert RANK[engine.decide(worse).kind] <= RANK[engine.decide(better).kind], (better, worse)
            checked += 1
    assert checked == 4000 * sum(len(engine.rules.order[f]) - 1 for f in FIELD_VALUES)

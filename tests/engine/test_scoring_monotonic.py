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

from hypothesis import given, settings
from hypothesis import strategies as st

from knowledge.recommend.engine import Engine, Signature
from knowledge.recommend.profile import FIELD_VALUES, UNKNOWN, WorkloadProfile
from knowledge.recommend.scoring import recommend, shipped_engine

RANK = {"gpu": 0, "gpu_then_tpu": 1, "tpu": 2}
SPACE = math.prod(len(v) for v in FIELD_VALUES.values())


def _contribution(engine: Engine, field: str, value: str) -> Signature:
    if value == UNKNOWN:
        return (0, 0, engine.could[field])
    return (engine.fit[field][value], engine.atoms[field][value], 0)


def _contexts(engine: Engine, skip: str) -> dict[Signature, int]:
    """Signatures of the other ten answers, with the number of profiles behind each.

    Folded exactly as ``Engine.signature`` folds answers: fit added and capped, atoms
    OR-ed, and the atoms unknown answers could add kept only beyond the known ones. Keys
    are packed into one int while folding (fit, atoms, could: 16 bits each) for speed.
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
            fit, atoms, could = key >> 32, (key >> 16) & 0xFFFF, key & 0xFFFF
            for df, da, dc in parts:
                a = atoms | da
                k = (min(cap, fit + df) << 32) | (a << 16) | ((could | dc) & ~a)
                nxt[k] = get(k, 0) + n
        groups = nxt
    return {(k >> 32, (k >> 16) & 0xFFFF, k & 0xFFFF): n for k, n in groups.items()}


def test_space_size_is_the_documented_one() -> None:
    assert SPACE == 6_144_000


def test_no_worse_answer_ever_moves_the_verdict_toward_tpu_over_all_profiles() -> None:
    engine = shipped_engine()
    cap = engine.rules.decision.fit_high
    for field, values in FIELD_VALUES.items():
        order = engine.rules.order[field]  # best for a TPU first
        covered = 0
        for (fit, atoms, could), n in _contexts(engine, field).items():
            covered += n * len(values)
            ranks = []
            for value in (*order, UNKNOWN):
                df, da, dc = _contribution(engine, field, value)
                a = atoms | da
                verdict = engine.decide_signature((min(cap, fit + df), a, (could | dc) & ~a))
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
    fit = atoms = could = 0
    for field in FIELD_VALUES:
        df, da, dc = _contribution(engine, field, getattr(profile, field))
        fit, atoms, could = fit + df, atoms | da, could | dc
    signature = (min(cap, fit), atoms, could & ~atoms)
    assert signature == engine.signature(profile.model_dump())
    assert recommend(profile).recommendation == engine.decide_signature(signature).kind

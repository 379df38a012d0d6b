"""Golden profiles: realistic teams, the recommendation we expect, and why (written down).

Each ``tests/golden_profiles/*.json`` holds a profile, the expected recommendation, the
reasoning behind it, and optional checks: the fit level, blockers that must be listed (by
id), caveats that must appear (by substring), flips that must be reported, blocked
options, confidence bounds, the first next question, or "no flips".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowledge.recommend.profile import parse_profile
from knowledge.recommend.recommender import recommend

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden_profiles"
GOLDEN = sorted(GOLDEN_DIR.glob("*.json"))
_KNOWN_KEYS = {
    "name", "profile", "expected", "reasoning", "caveats_include", "flips_include",
    "blocked", "min_confidence", "max_confidence", "no_flips", "fit", "blockers_include", "first_question",
}


def test_there_are_at_least_thirty_golden_profiles_covering_every_outcome() -> None:
    assert len(GOLDEN) >= 30
    outcomes = {json.loads(p.read_text())["expected"] for p in GOLDEN}
    assert outcomes == {"gpu", "tpu", "gpu_then_tpu"}


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_golden_profile(path: Path) -> None:
    case = json.loads(path.read_text(encoding="utf-8"))
    assert set(case) <= _KNOWN_KEYS, f"unknown keys in {path.name}: {set(case) - _KNOWN_KEYS}"
    assert case["name"] == path.stem
    assert len(case["reasoning"].split()) >= 15, "the reasoning must be written down, not a stub"

    rec = recommend(parse_profile(case["profile"]))

    assert rec.recommendation == case["expected"], (
        f"{path.stem}: got {rec.recommendation} (scores {rec.scores}), expected {case['expected']}"
    )
    for needle in case.get("caveats_include", []):
        assert any(needle.lower() in c.lower() for c in rec.caveats), f"no caveat mentions {needle!r}: {rec.caveats}"
    reported = {(f.field, f.value, f.recommendation) for f in rec.flips}
    for flip in case.get("flips_include", []):
        assert tuple(flip) in reported, f"flip {flip} not reported: {sorted(reported)}"
    if case.get("no_flips"):
        assert rec.flips == []
    if "blocked" in case:
        assert sorted(rec.blocked) == sorted(case["blocked"])
    else:
        assert rec.blocked == {}
    if "fit" in case:
        assert rec.fit == case["fit"], f"fit {rec.fit}, expected {case['fit']}"
    shown = [b.id for b in rec.blockers]
    for blocker in case.get("blockers_include", []):
        assert blocker in shown, f"blocker {blocker} not listed: {shown}"
    if rec.recommendation == "tpu":
        assert shown == [], "a tpu verdict has no blockers"
    if "first_question" in case:
        assert rec.next_questions[:1] == [case["first_question"]], rec.next_questions
    if "min_confidence" in case:
        assert rec.confidence >= case["min_confidence"]
    if "max_confidence" in case:
        assert rec.confidence <= case["max_confidence"]
    # Every recommendation is explained with cited reasons, even an empty profile.
    assert rec.reasons and all(r.citations for r in rec.reasons)


def test_blocked_recommendation_lists_the_constraint_first() -> None:
    case = json.loads((GOLDEN_DIR / "04_multi_cloud_requirement_blocks_tpu.json").read_text())
    rec = recommend(parse_profile(case["profile"]))
    assert rec.reasons[0].effect == "gate: no TPU here"
    assert rec.reasons[0].factor.startswith("cloud = multi_cloud: TPU not available")
    assert rec.blocked["tpu"] == rec.blocked["gpu_then_tpu"]
    assert [b.id for b in rec.blockers] == ["cloud.no_tpu_here"]

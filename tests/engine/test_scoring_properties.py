"""Properties of the scoring engine over random profiles (hypothesis).

These are the promises the decision logic makes, checked on thousands of profiles
rather than a handful of examples: direction (more critical kernels never helps TPU),
hard constraints (multi-cloud / on-prem never yields TPU), honesty (every flip really
flips, and no unreported answer would), and exact explanations (the reasons' points
add up to the scores).
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from knowledge.recommend.profile import FIELD_VALUES, UNKNOWN, WorkloadProfile
from knowledge.recommend.scoring import evaluate, recommend, shipped_rules

RANK = {"gpu": 0, "gpu_then_tpu": 1, "tpu": 2}
LABEL = re.compile(r"^\[file_gpu\d{3}:c\d{4}\] \S+\.md p\d+-\d+$")
EFFECT = re.compile(r"^(gpu|tpu|gpu_then_tpu) ([+-]\d+)$")

profiles = st.fixed_dictionaries({field: st.sampled_from(values) for field, values in FIELD_VALUES.items()}).map(
    lambda answers: WorkloadProfile(**answers)
)
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def kind(profile: WorkloadProfile) -> str:
    """The decision alone (what ``recommend`` reports, without building the explanation)."""
    return evaluate(profile, shipped_rules())[1].kind


@SETTINGS
@given(profiles)
def test_more_critical_custom_kernels_never_moves_toward_tpu(profile: WorkloadProfile) -> None:
    ladder = [evaluate(profile.with_value("custom_kernels", v), shipped_rules()) for v in ("none", "some", "critical")]
    ranks = [RANK[decision.kind] for _, decision in ladder]
    assert ranks[0] >= ranks[1] >= ranks[2], ranks
    tpu_leads = [card.scores["tpu"] - card.scores["gpu"] for card, _ in ladder]
    assert tpu_leads[0] >= tpu_leads[1] >= tpu_leads[2]


@SETTINGS
@given(profiles, st.sampled_from(["multi_cloud", "on_prem"]))
def test_multi_cloud_or_on_prem_never_yields_tpu(profile: WorkloadProfile, cloud: str) -> None:
    rec = recommend(profile.with_value("cloud", cloud))
    assert rec.recommendation == "gpu"
    assert set(rec.blocked) == {"tpu", "gpu_then_tpu"}
    assert rec.confidence > 0


@SETTINGS
@given(profiles)
def test_every_reported_flip_flips_and_every_other_answer_does_not(profile: WorkloadProfile) -> None:
    rec = recommend(profile)
    reported = {(f.field, f.value): f.recommendation for f in rec.flips}
    for field, values in FIELD_VALUES.items():
        for value in values:
            if value in (UNKNOWN, getattr(profile, field)):
                continue
            outcome = kind(profile.with_value(field, value))
            if (field, value) in reported:
                assert outcome == reported[(field, value)] != rec.recommendation
            else:
                assert outcome == rec.recommendation, f"unreported flip {field}={value} -> {outcome}"


@SETTINGS
@given(profiles)
def test_scores_decompose_exactly_into_reasons(profile: WorkloadProfile) -> None:
    rec = recommend(profile)
    totals = {option: 0.0 for option in rec.scores}
    for reason in rec.reasons:
        assert reason.citations and all(LABEL.match(c) for c in reason.citations), reason.citations
        if reason.effect.startswith("blocks "):
            continue
        for part in reason.effect.split(", "):
            match = EFFECT.match(part)
            assert match, f"unparsable effect {reason.effect!r}"
            totals[match.group(1)] += int(match.group(2))
    assert totals == rec.scores


@SETTINGS
@given(profiles)
def test_tpu_only_when_it_clearly_wins_and_nothing_blocks(profile: WorkloadProfile) -> None:
    rec = recommend(profile)
    if rec.recommendation == "tpu":
        margin = shipped_rules().decision.clear_margin
        assert "tpu" not in rec.blocked
        assert rec.scores["tpu"] - rec.scores["gpu"] >= margin
        assert rec.scores["tpu"] > rec.scores["gpu_then_tpu"]
        assert "cloud" not in profile.unknown_fields()  # an unknown cloud could rule TPUs out


@SETTINGS
@given(profiles)
def test_deterministic_bounded_and_contract_shaped(profile: WorkloadProfile) -> None:
    first, second = recommend(profile), recommend(profile)
    assert first == second
    assert first.recommendation == kind(profile)
    params = shipped_rules().decision
    assert params.confidence_floor <= first.confidence <= params.confidence_cap
    contract = first.to_contract()
    assert list(contract) == ["recommendation", "confidence", "scores", "reasons", "caveats", "flips"]
    assert set(contract["scores"]) == {"gpu", "tpu", "gpu_then_tpu"}
    assert all(set(r) == {"factor", "effect", "citations"} for r in contract["reasons"])
    assert all(set(f) == {"field", "value", "recommendation"} for f in contract["flips"])


@SETTINGS
@given(profiles)
def test_tpu_and_staged_recommendations_always_carry_the_google_cloud_caveat(profile: WorkloadProfile) -> None:
    rec = recommend(profile)
    has = any(c.startswith("TPU means Google Cloud only") for c in rec.caveats)
    assert has == (rec.recommendation != "gpu")


@SETTINGS
@given(profiles, st.sampled_from(sorted(FIELD_VALUES)))
def test_forgetting_an_answer_never_raises_confidence_in_the_same_decision(profile: WorkloadProfile, field: str) -> None:
    """With the same decision and margin, one more unknown answer can only lower confidence."""
    known, forgotten = profile, profile.with_value(field, UNKNOWN)
    if known == forgotten:
        return
    (_, dec_a), (_, dec_b) = evaluate(known, shipped_rules()), evaluate(forgotten, shipped_rules())
    if dec_a.kind == dec_b.kind and dec_a.margin == dec_b.margin:
        assert recommend(forgotten).confidence <= recommend(known).confidence

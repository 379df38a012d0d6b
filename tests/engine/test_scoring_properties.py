"""Properties of the recommendation over random profiles (hypothesis).

Every test asserts on every generated case: the gate (multi-cloud / on-prem is a certain
``gpu``), honesty (every flip flips, no unreported answer would; confidence is exactly the
share of completions that keep the verdict), a ``tpu`` verdict that never says the team
cannot do it, and the contract shape.
"""

from __future__ import annotations

import itertools
import math
import re
import tomllib

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from knowledge.recommend.profile import FIELD_VALUES, UNKNOWN, WorkloadProfile
from knowledge.recommend.recommender import decide_profile, recommend, shipped_rules
from knowledge.recommend.rules import RULES_DIR

LABEL = re.compile(r"^\[file_gpu\d{3}:c\d{4}\] \S+\.md p\d+-\d+$")

profiles = st.fixed_dictionaries({field: st.sampled_from(values) for field, values in FIELD_VALUES.items()}).map(
    lambda answers: WorkloadProfile(**answers)
)
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def kind(profile: WorkloadProfile) -> str:
    return decide_profile(profile).kind


@SETTINGS
@given(profiles, st.sampled_from(["multi_cloud", "on_prem"]))
def test_multi_cloud_or_on_prem_is_a_certain_gpu(profile: WorkloadProfile, cloud: str) -> None:
    rec = recommend(profile.with_value("cloud", cloud))
    assert rec.recommendation == "gpu"
    assert rec.confidence == 1.0
    assert set(rec.blocked) == {"tpu", "gpu_then_tpu"}
    assert rec.next_questions == []
    assert [b.id for b in rec.blockers if b.effort == "none"] == ["cloud.no_tpu_here"]


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


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(profiles, st.sets(st.sampled_from(sorted(FIELD_VALUES)), max_size=4))
def test_confidence_is_the_exact_share_of_completions_that_keep_the_verdict(
    profile: WorkloadProfile, forget: set[str]
) -> None:
    """Enumerate every completion of up to 4 unknown answers, each weighted by the shipped priors."""
    partial = profile.model_copy(update={f: UNKNOWN for f in forget})
    rec = recommend(partial)
    unknown = partial.unknown_fields()
    priors = shipped_rules().priors
    choices = [[v for v in FIELD_VALUES[f] if v != UNKNOWN] for f in unknown]
    completions = [dict(zip(unknown, combo, strict=True)) for combo in itertools.product(*choices)]
    if len(completions) > 2000:  # many unknowns: the sampled profile already had some; check the bound only
        assert 0.0 <= rec.confidence <= 1.0
        return
    weight = [math.prod(priors[f][v] for f, v in c.items()) for c in completions]
    same = [kind(partial.model_copy(update=c)) == rec.recommendation for c in completions]
    share = sum(w for w, s in zip(weight, same) if s)
    assert abs(sum(weight) - 1.0) < 1e-9
    assert abs(rec.confidence - round(share + 1e-12, 4)) < 1e-9 or (all(same) and rec.confidence == 1.0)
    assert (rec.confidence == 1.0) == (rec.next_questions == [])
    assert abs(sum(rec.scores.values()) - 1.0) < 1e-3


@SETTINGS
@given(profiles)
def test_a_tpu_verdict_is_ready_certain_and_never_says_the_team_cannot(profile: WorkloadProfile) -> None:
    rec = recommend(profile)
    if rec.recommendation != "tpu":
        assert rec.recommendation == "gpu" or rec.fit == "high"
        return
    assert rec.blockers == [] and rec.todo == []
    assert rec.fit in ("medium", "high") and rec.confidence == 1.0
    for text in [*(r.factor for r in rec.reasons if r.direction == "for"), *rec.caveats]:
        assert "cannot" not in text.lower() and "no time" not in text.lower(), text


@SETTINGS
@given(profiles)
def test_every_verdict_has_cited_reasons_with_a_direction(profile: WorkloadProfile) -> None:
    rec = recommend(profile)
    assert rec.reasons, "every verdict is explained, even an empty profile"
    assert any(r.direction == "for" for r in rec.reasons)
    for reason in rec.reasons:
        assert reason.citations and all(LABEL.match(c) for c in reason.citations), reason.citations
        assert reason.direction in ("for", "against")
    for blocker in rec.blockers:
        assert blocker.citations and blocker.effort and blocker.text
    if rec.recommendation == "gpu_then_tpu":
        assert rec.todo and rec.todo[-1].startswith("Then ")
    else:
        assert rec.todo == []


@SETTINGS
@given(profiles)
def test_deterministic_and_contract_shaped(profile: WorkloadProfile) -> None:
    first, second = recommend(profile), recommend(profile)
    assert first == second
    contract = first.to_contract()
    assert list(contract) == [
        "recommendation", "confidence", "scores", "reasons", "caveats", "flips",
        "fit", "blockers", "todo", "next_questions",
    ]
    assert set(contract["scores"]) == {"gpu", "tpu", "gpu_then_tpu"}
    assert contract["fit"] in ("low", "medium", "high")
    assert all(set(r) == {"factor", "effect", "citations", "direction"} for r in contract["reasons"])
    assert all(set(b) == {"id", "text", "effort", "citations"} for b in contract["blockers"])
    assert all(set(f) == {"field", "value", "recommendation"} for f in contract["flips"])
    assert set(contract["next_questions"]) <= set(profile.unknown_fields())


@SETTINGS
@given(profiles)
def test_tpu_and_staged_recommendations_always_carry_the_google_cloud_caveat(profile: WorkloadProfile) -> None:
    rec = recommend(profile)
    has = any(c.startswith("TPU means Google Cloud only") for c in rec.caveats)
    assert has == (rec.recommendation != "gpu")


def test_the_shipped_priors_lean_only_where_a_citation_says_why() -> None:
    """Every field has a rationale; a non-uniform prior cites the notes and leans by at most 2:1."""
    rules = shipped_rules()
    raw = tomllib.loads((RULES_DIR / "priors.toml").read_text(encoding="utf-8"))["priors"]
    assert set(rules.prior_rationale) == set(FIELD_VALUES)
    for field, weights in rules.priors.items():
        assert abs(sum(weights.values()) - 1.0) < 1e-9
        if len(set(round(w, 12) for w in weights.values())) > 1:
            assert raw[field].get("citations"), f"{field} leans without a citation"
            assert max(weights.values()) / min(weights.values()) <= 2.0 + 1e-9, field
        else:
            assert "uniform" in rules.prior_rationale[field].lower(), field

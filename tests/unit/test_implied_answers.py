"""Implied answers (implied.toml): applied before scoring, shown apart, overruled by what is stated."""

from __future__ import annotations

from pathlib import Path

import pytest

from common.errors import RuleError
from knowledge.recommend.implication import implied, load_implications, text_hits
from knowledge.recommend.profile import parse_profile
from knowledge.recommend.reading import read_message
from knowledge.recommend.recommender import recommend

#: The issue's example, word for word.
ISSUE_EXAMPLE = ("JAX shop on Google Cloud, model frozen for a year, massive training, pipeline keeps up, "
                 "no custom kernels, XLA team, weeks to spend")

#: What that message states, field by field; it says nothing of the stage or the priority.
STATED = {"framework": "jax", "cloud": "google_cloud", "architecture_changes": "rarely", "scale": "massive",
          "workload": "training", "data_pipeline": "keeps_up", "custom_kernels": "none",
          "team_expertise": "xla", "optimization_time": "weeks"}


def test_the_issue_example_is_tpu_because_a_frozen_model_is_past_exploration() -> None:
    """Expected verdict: TPU, with certainty.

    Reasoning. Known fit: massive 4 + training 2 + rarely 2 + no kernels 2 = 10, high on the
    answers alone. Nothing stated blocks: Google Cloud, JAX, pipeline keeps up, XLA team with
    weeks. Without implications two fields are open; the priority cannot matter (it gives fit
    points only, and the fit is already high), but an unsaid stage *could* be exploration,
    which is a blocker, so the readiness is pending and the table says "GPU now, TPU later"
    only because the stage was not said. A model frozen for a year is not in exploration: the
    stage is implied "stabilizing" (the least TPU-friendly stage the premise allows), no
    unknown can block, and the verdict is TPU. The priority stays unknown and does not matter.
    """
    before = recommend(parse_profile(STATED, origin="test"))
    assert before.recommendation == "gpu_then_tpu" and before.readiness == "pending"
    assert "stage" in before.next_questions

    stated = {f: (v, "") for f, v in STATED.items()}
    imp = implied(stated, text_hits(ISSUE_EXAMPLE))
    assert imp["stage"].value == "stabilizing" and "exploration" in imp["stage"].because
    assert "priority" not in imp
    after = recommend(parse_profile({**{f: i.value for f, i in imp.items()}, **STATED}, origin="test"))
    assert (after.recommendation, after.confidence, after.fit) == ("tpu", 1.0, "high")
    assert after.next_questions == []


def test_the_issue_message_itself_implies_stage_and_architecture_and_no_longer_asks_the_stage() -> None:
    reading = read_message(ISSUE_EXAMPLE)
    assert "stage" not in reading.stated
    assert reading.implied["stage"].value == "stabilizing"
    if "architecture_changes" not in reading.stated:  # the extractor may read "frozen" itself
        assert reading.implied["architecture_changes"].value == "rarely"
    rec = recommend(reading.profile())
    assert "stage" not in rec.next_questions
    assert "stage.finish_exploring" not in [b.id for b in rec.blockers]
    # said so the extractor reads every field, the message is a TPU
    full = read_message(ISSUE_EXAMPLE.replace("weeks to spend", "we can spend weeks of engineering time on it"))
    assert recommend(full.profile()).recommendation == "tpu"
    assert full.to_json()["implied"]["stage"]["value"] == "stabilizing"


@pytest.mark.parametrize("text", [
    "our model is not frozen for a year, we change it every week",
    "once the model is frozen for a year we'll look at TPUs",
    "we hope the architecture stays the same for months",
])
def test_a_negated_or_planned_premise_implies_nothing(text: str) -> None:
    assert "frozen_long.architecture_rarely" not in text_hits(text)


def test_what_the_user_states_overrules_an_implication() -> None:
    stated = {"architecture_changes": ("rarely", "frozen"), "stage": ("exploration", "still exploring")}
    assert "stage" not in implied(stated)
    reading = read_message("we're still exploring, but the model has been frozen for months")
    assert reading.stated.get("stage") is None or reading.stated["stage"].value == "exploration"
    assert "stage" not in reading.implied or "stage" not in reading.stated


def test_a_field_waiting_for_confirmation_is_not_implied() -> None:
    assert "stage" not in implied({"architecture_changes": ("rarely", "")}, pending=frozenset({"stage"}))


def test_tpu_pods_imply_massive_scale_and_google_cloud() -> None:
    reading = read_message("we train a transformer on TPU v4 pods")
    assert reading.answers()["scale"] == "massive"
    assert reading.answers()["cloud"] == "google_cloud"
    assert "cloud" not in reading.stated
    assert "Google Cloud" in reading.implied["cloud"].because


def test_chained_implications_keep_the_most_cautious_value() -> None:
    """Two rules implying one field give the value worse for a TPU: the weaker premise wins."""
    imp = implied({"architecture_changes": ("rarely", ""), "framework": ("jax", "")})
    assert imp["stage"].value == "stabilizing" and imp["team_expertise"].value == "xla"


def test_a_broken_rules_file_is_refused_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "implied.toml"
    bad.write_text('[guard]\nbefore = "x"\nclause = "y"\n[[rule]]\nid = "a"\nbecause = "b"\n'
                   'when = { stage = ["exploration"] }\nthen = { cloud = "mars" }\n', encoding="utf-8")
    with pytest.raises(RuleError) as err:
        load_implications(bad, check_citations=False)
    assert "implied.toml" in str(err.value) and "\n" not in str(err.value)
    cites = tmp_path / "cites.toml"
    cites.write_text('[guard]\nbefore = "x"\nclause = "y"\n[[rule]]\nid = "a"\nbecause = "b"\n'
                     'when = { stage = ["exploration"] }\nthen = { cloud = "on_prem" }\n'
                     'subject = ["bananas"]\ncitations = ["file_gpu001:c0000"]\n', encoding="utf-8")
    with pytest.raises(RuleError, match="does not mention bananas"):
        load_implications(cites)

"""``profile_from_text`` on the labelled phrasings: the set's size and shape, its split, the metric, the floors."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from knowledge.evaluation import (
    LATE_PHRASINGS_FILE,
    Phrasing,
    judge_extraction,
    load_extraction_floors,
    load_phrasings,
    measure_extraction,
    phrasing_halves,
)
from knowledge.recommend import profile_from_text
from knowledge.recommend.extraction import Extraction, FieldEvidence
from knowledge.recommend.profile import FIELD_VALUES

#: The issue's own examples must be in the set, with these labels.
ISSUE_EXAMPLES = {
    "8 GPUs": ("scale", "multi_device"),
    "256 chips": ("scale", "massive"),
    "a pod": ("scale", "massive"),
    "every week": ("architecture_changes", "often"),
    "2 weeks": ("optimization_time", "weeks"),
    "no time": ("optimization_time", "none"),
    "our own datacenter": ("cloud", "on_prem"),
    "data loading is the bottleneck": ("data_pipeline", "cannot_keep_up"),
    "PyTorch 2.3": ("framework", "pytorch"),
    "TF 2.15": ("framework", "tensorflow"),
}


def test_the_set_is_big_varied_and_well_formed() -> None:
    items = load_phrasings()
    floors = load_extraction_floors()
    assert len(items) >= floors.min_phrasings >= 300
    assert len({(i.text.lower(), i.field) for i in items}) == len(items)
    strata = Counter(i.stratum for i in items)
    # free-text answers to every intake question, whole messages, and texts that state nothing
    assert {f"answer:{f}" for f in FIELD_VALUES} <= set(strata) and all(n >= 10 for n in strata.values()), strata
    assert strata["message"] >= 100 and strata["silent"] >= 30
    # every answer of every field is labelled somewhere, and some texts must be asked, not set
    labelled = {(f, v) for i in items for f, v in i.expect.items()}
    assert labelled == {(f, v) for f, vs in FIELD_VALUES.items() for v in vs if v != "unknown"}
    assert sum(len(i.confirm) for i in items) >= 10
    by_text = {(i.text, i.field): i for i in items}
    for text, (field, value) in ISSUE_EXAMPLES.items():
        assert by_text[(text, field)].expect == {field: value}, text
    answers = {i.text.lower(): i.expect for i in items if i.field is None}
    assert answers["is a tpu cheaper than a gpu?"] == {} and answers["we moved off aws last year"] == {}
    assert answers["we're not on gcp."] == {}


def test_a_bad_label_is_a_one_line_error(tmp_path: Path) -> None:
    bad = tmp_path / "p.jsonl"
    bad.write_text('{"id": "x", "text": "8 GPUs", "expect": {"scale": "eight"}}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"^p\.jsonl:1: .*not a profile answer"):
        load_phrasings(bad)
    bad.write_text('{"id": "x", "text": "AWS", "field": "cloud", "expect": {"scale": "massive"}}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="can only label cloud"):
        load_phrasings(bad)


def test_split_is_deterministic_stratified_and_disjoint() -> None:
    items = load_phrasings()
    split = phrasing_halves(items)
    assert split == phrasing_halves(list(reversed(items))) and set(split) == {i.id for i in items}
    for stratum in Counter(i.stratum for i in items):
        mine = [split[i.id] for i in items if i.stratum == stratum]
        assert abs(mine.count("tune") - mine.count("test")) <= 1, stratum


def test_the_judge_counts_misses_spurious_fields_and_questions() -> None:
    item = Phrasing(id="t", text="we're on AWS", expect={"cloud": "other_single_cloud"}, confirm=("custom_kernels",))
    wrong = Extraction(fields={
        "cloud": FieldEvidence(field="cloud", value="google_cloud", span=(0, 1), evidence="w", confidence=1.0),
        "scale": FieldEvidence(field="scale", value="massive", span=(0, 1), evidence="w", confidence=1.0),
    })
    judged = judge_extraction(item, wrong)
    assert (judged.right, judged.labelled, judged.spurious, judged.asked, judged.to_ask) == (0, 1, ["scale=massive"], 0, 1)
    right = judge_extraction(item, profile_from_text("we're on AWS with custom CUDA kernels"))
    assert (right.right, right.spurious, right.asked) == (1, [], 1)


def test_test_half_meets_the_floors_and_neither_half_sets_a_field_the_text_does_not_state() -> None:
    items = load_phrasings()
    report = measure_extraction(items)
    floors = load_extraction_floors()
    assert floors.spurious_max == 0 and floors.field_accuracy >= 0.95
    assert floors.failures(report, len(items)) == [], report.lines() + report.tune.failures + report.test.failures
    assert report.tune.silent_clean.value == report.test.silent_clean.value == 1.0


#: Later-batch texts where the extractor sets a field the label lacks. The labels were written
#: first and are kept, so these stay visible instead of being relabelled; any other is a regression.
KNOWN_SPURIOUS = {
    "we're an all-Azure org, but ML can use any cloud if justified",  # labelled "ask"; read as multi-cloud
    "our ranking model has been the same for 2 years, only retrained",  # retraining read as training
    "the vendor quoted us for 8 H100s",  # a quote, read as the team's scale (arguable)
    "we had a great offsite in Azure-blue t-shirts",  # a colour, read as the cloud: a miss
    "before I joined, the team used TensorFlow",  # the past in the clause before: a miss
    # labelled as stating nothing; read as "unknown", as 35 outside messages saying "not sure (if) our
    # loader keeps up" were labelled (arguable)
    "not sure if we're compute bound or input bound tbh",
}


def test_the_later_batches_set_no_field_their_text_does_not_state() -> None:
    late = load_phrasings(LATE_PHRASINGS_FILE)
    assert len(late) >= 450 and not {i.id for i in late} & {i.id for i in load_phrasings()}
    judged = [judge_extraction(i, profile_from_text(i.text, i.field)) for i in late]
    assert {i.text for i, j in zip(late, judged) if j.spurious} <= KNOWN_SPURIOUS
    assert sum(j.right for j in judged) / sum(j.labelled for j in judged) >= 0.9  # a regression guard, not a floor

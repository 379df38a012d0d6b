"""Block Kit rendering stays inside Slack's limits for any size of answer, recommendation or form."""

from __future__ import annotations

import itertools

import pytest

from bot.intake.questions import load_questionnaire
from bot.slack.blocks import FEEDBACK_BLOCK_ID, MAX_BLOCKS, SECTION_LIMIT, answer_message, split_text, thanks_line
from bot.slack.modal import block_id_for, intake_view, parse_submission
from bot.slack.recommend_blocks import recommendation_message
from knowledge.qa.answers import Answer, Citation
from knowledge.recommend.profile import FIELD_VALUES, parse_profile
from knowledge.recommend.recommender import recommend
from tests.harness.slack_requests import select_state
from tests.slack.conftest import block_texts


def _citation(n: int) -> Citation:
    return Citation(
        label=f"[file_gpu{n % 1000:03d}:c{n:04d}] a_rather_long_source_file_name_{n}.md p{n}-{n + 1}",
        chunk_id=f"file_gpu{n % 1000:03d}:c{n:04d}",
        source=f"file_gpu{n % 1000:03d}",
        pages=f"{n}-{n + 1}",
        score=0.5,
    )


def _check_limits(blocks: list[dict]) -> None:
    assert len(blocks) <= MAX_BLOCKS
    for block in blocks:
        if block["type"] == "section":
            assert len(block["text"]["text"]) <= SECTION_LIMIT
        if block["type"] == "context":
            assert len(block["elements"]) <= 10
            assert all(len(e["text"]) <= SECTION_LIMIT for e in block["elements"])


def test_a_huge_answer_is_split_and_capped_but_keeps_sources_and_buttons() -> None:
    paragraph = "TPUs excel at large, stable matrix workloads & GPUs at everything else. " * 60
    text = "\n\n".join([paragraph] * 80)
    answer = Answer(question="q", answer=text, declined=False, citations=[_citation(n) for n in range(3)])
    msg = answer_message(answer, "abc")
    _check_limits(msg.blocks)
    assert len(msg.blocks) == MAX_BLOCKS
    assert msg.blocks[-1]["block_id"] == FEEDBACK_BLOCK_ID
    assert any(b.get("block_id") == "hwbot_sources" for b in msg.blocks)
    assert "cut to fit" in block_texts(msg.blocks)[-2]
    assert len(msg.text) < 400 and msg.text.endswith("…")  # a short notification line, cut before escaping


def test_hundreds_of_citations_fit() -> None:
    answer = Answer(question="q", answer="Short.", declined=False, citations=[_citation(n) for n in range(400)])
    msg = answer_message(answer, "abc")
    _check_limits(msg.blocks)
    sources = "\n".join(t for b in msg.blocks if b["type"] == "context" for t in block_texts([b]))
    assert sources.count("[file_gpu") == 400


def test_split_prefers_paragraphs_then_sentences() -> None:
    para = "One sentence here. " * 100  # ~1,900 characters
    chunks = split_text(f"{para}\n\n{para}")
    assert len(chunks) == 2 and all(c.startswith("One sentence") for c in chunks)
    long_para = "Another sentence. " * 400  # ~7,200 characters, one paragraph
    chunks = split_text(long_para)
    assert all(len(c) <= SECTION_LIMIT for c in chunks) and len(chunks) == 3
    assert all(c.rstrip().endswith(".") for c in chunks)


def test_a_thank_you_replaces_only_the_buttons() -> None:
    answer = Answer(question="q", answer="A.", declined=False, citations=[_citation(1)])
    blocks = answer_message(answer, "abc").blocks
    thanked = answer_message(answer, "abc", thanks=thanks_line(True)).blocks
    assert len(thanked) == len(blocks)
    assert [b["type"] for b in thanked][-1] == "context" and thanked[-1]["block_id"] == FEEDBACK_BLOCK_ID
    assert thanked[:-1] == blocks[:-1]


PROFILES = [
    {},
    {f: "unknown" for f in FIELD_VALUES},
    {"stage": "production", "cloud": "google_cloud", "scale": "massive", "framework": "jax", "team_expertise": "xla"},
    {"stage": "exploration", "custom_kernels": "critical", "cloud": "multi_cloud", "framework": "pytorch"},
    {"cloud": "on_prem", "workload": "inference", "priority": "cost_at_scale", "data_pipeline": "cannot_keep_up"},
]


@pytest.mark.parametrize("answers", PROFILES)
def test_recommendations_render_within_limits(answers: dict[str, str]) -> None:
    profile = parse_profile(answers)
    rec = recommend(profile)
    msg = recommendation_message(rec, profile)
    _check_limits(msg.blocks)
    assert msg.blocks[0]["type"] == "header" and len(msg.blocks[0]["text"]["text"]) <= 150
    text = "\n".join(block_texts(msg.blocks))
    assert "What would change this" in text
    for flip in rec.flips:
        assert load_questionnaire().by_field(flip.field).label_of(flip.value) in text


def test_the_modal_fits_slack_limits_and_offers_every_value() -> None:
    view = intake_view("C1")
    assert len(view["title"]["text"]) <= 24 and len(view["submit"]["text"]) <= 24
    assert len(view["blocks"]) <= 100
    assert len(view["private_metadata"]) <= 3000
    inputs = [b for b in view["blocks"] if b["type"] == "input"]
    assert len(inputs) == len(FIELD_VALUES)
    for block in inputs:
        assert block["optional"] is False
        assert len(block["label"]["text"]) <= 2000 and len(block["hint"]["text"]) <= 2000
        assert all(len(o["text"]["text"]) <= 75 for o in block["element"]["options"])


def test_every_combination_of_options_parses_back() -> None:
    fields = list(FIELD_VALUES)
    # Walk each field through all its values at least once, the rest varying alongside.
    longest = max(len(v) for v in FIELD_VALUES.values())
    for i in range(longest):
        answers = {f: FIELD_VALUES[f][i % len(FIELD_VALUES[f])] for f in fields}
        profile, errors = parse_submission({"state": {"values": select_state(answers)}})
        assert errors == {} and profile is not None
        assert profile.model_dump() == answers


@pytest.mark.parametrize(
    "view",
    [
        {},
        {"state": None},
        {"state": {"values": "nonsense"}},
        {"state": {"values": {block_id_for("stage"): {"stage": {"selected_option": None}}}}},
        {"state": {"values": {block_id_for("stage"): {"stage": {"selected_option": {"value": 7}}}}}},
    ],
)
def test_malformed_submissions_are_errors_not_crashes(view: dict) -> None:
    profile, errors = parse_submission(view)
    assert profile is None
    assert set(errors) == {block_id_for(f) for f in FIELD_VALUES} or block_id_for("stage") in errors


def test_all_questions_get_an_error_at_once() -> None:
    answers = dict(zip(FIELD_VALUES, itertools.repeat("bogus")))
    _, errors = parse_submission({"state": {"values": select_state(answers)}})
    assert set(errors) == {block_id_for(f) for f in FIELD_VALUES}

"""Reasons read in words, for and against apart: the text every front end renders.

Issue 12: "reasons read like a points ledger" and "factors against the verdict are listed
unmarked under 'Why'". These checks run the real engine over every golden profile.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.plaintext import reason_lines, render_recommendation_text
from knowledge.recommend import VERDICT_LABELS, parse_profile, recommend
from tests.harness.profiles import GOLDEN_DIR

GOLDEN = sorted(GOLDEN_DIR.glob("*.json"))


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_every_reason_has_words_and_sits_on_its_side(path: Path) -> None:
    rec = recommend(parse_profile(json.loads(path.read_text())["profile"]))
    for_rows, against_rows = reason_lines(rec)
    assert len(for_rows) + len(against_rows) == len(rec.reasons) and for_rows
    for row in (*for_rows, *against_rows):
        assert row.role and row.sentence and row.answer
        assert "+" not in row.role and ":" not in row.role and "_" not in row.answer
    if rec.recommendation == "tpu":  # a TPU verdict never argues with a blocker
        assert not any("before a TPU" in r.role or "rules TPUs out" in r.role for r in for_rows)

    text = render_recommendation_text(rec, max_reasons=20)
    assert f"Why {VERDICT_LABELS[rec.recommendation]}:" in text
    for reason in rec.reasons:
        assert reason.sentence in text and reason.role in text
    for machine in ("fit +", "blocker:", "gate:", "readiness:", "[default]"):
        assert machine not in text, machine
    if against_rows:
        head = text.index("What argues against it:")
        assert all(text.index(r.sentence) > head for r in against_rows)
        assert all(text.index(r.sentence) < head for r in for_rows)
    else:
        assert "What argues against it:" not in text


def test_the_roles_stay_out_of_the_json_contract() -> None:
    rec = recommend(parse_profile({"cloud": "on_prem", "scale": "massive"}))
    assert rec.reasons[0].role == "rules TPUs out here"
    assert all(set(r) == {"factor", "effect", "citations", "direction"} for r in rec.to_contract()["reasons"])

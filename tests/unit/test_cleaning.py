"""Ingest cleaning: repeated blocks, testimonials, promo cards and widget debris are dropped."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer.cleaning import clean_source, load_rules
from indexer.sources import read_source

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "scraped_page.txt"
SEED = Path(__file__).resolve().parents[3] / "shared" / "seeds" / "gpu_vs_tpu_lesson_page.txt"


def texts(source) -> list[str]:
    return [b.text for p in source.pages for b in p.blocks]


def test_scraped_fixture_keeps_only_knowledge():
    cleaned, stats = clean_source(read_source(FIXTURE))
    kept = texts(cleaned)
    assert kept == [
        "Choosing an accelerator for a small research team",
        "Accelerators differ in how much flexibility they give a research team. "
        "A team that rewrites its model every week needs hardware that runs whatever it writes.",
        "Teams that train one large, stable model for months care more about cost per step than about flexibility.",
    ]
    assert stats.duplicates == 2  # the exact repeat and the near repeat ("!" instead of ".")
    assert stats.testimonials == 8  # two quotes + two handles, rendered twice
    assert stats.cards == 1
    assert stats.boilerplate >= 4  # duration, date, counts/ratings, made-by, bare URL
    assert not any("example.com" in t for t in kept)


def test_markdown_notes_are_not_stripped_of_prose(sources_dir):
    source = read_source(sources_dir / "gpu_tpu_lesson_notes.md")
    cleaned, stats = clean_source(source)
    assert stats.boilerplate == stats.testimonials == stats.cards == 0
    assert texts(cleaned) == texts(source)


def test_rules_are_valid_data():
    rules = load_rules()
    assert {r.id for r in rules.rule} >= {"bare-count", "handle", "made-by", "nav", "bare-url"}
    assert rules.card


@pytest.mark.skipif(not SEED.exists(), reason="the seed page lives in ../shared, beside the repo")
def test_seed_page_loses_its_noise_but_keeps_the_faq():
    cleaned, stats = clean_source(read_source(SEED))
    kept = " ".join(texts(cleaned))
    assert "utilization challenge" in kept and "workshop" in kept
    assert "@Moemenn" not in kept and "BeFreed Team" not in kept
    assert "Ratings" not in kept and "Thinking, Fast and Slow" not in kept
    assert stats.testimonials > 50 and stats.duplicates >= 1

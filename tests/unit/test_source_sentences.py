"""Every sentence of every source stands alone, and meta text is never indexed.

Answers quote sentences out of their paragraphs, so each one must name its subject.
The openers and meta phrases are data (``knowledge/qa/data/standalone.toml``).
"""

from __future__ import annotations

import pytest

from indexer.chunking import chunk_source
from indexer.sources import read_source
from knowledge.paths import SOURCES_DIR
from knowledge.qa.standalone import dangling_opener, meta_phrase, standalone_rules

SOURCES = sorted(SOURCES_DIR.glob("*.md"))


def _sentences(path) -> list[str]:
    out: list[str] = []
    for chunk in chunk_source(read_source(path)):
        out.extend(s for s in chunk.sentences if s not in out)
    return out


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_every_sentence_stands_alone(path) -> None:
    bad = [(dangling_opener(s) or meta_phrase(s), s) for s in _sentences(path) if dangling_opener(s) or meta_phrase(s)]
    assert not bad, f"{path.name}: sentences that lean on others or talk about the notes: {bad}"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_front_matter_about_is_not_indexed(path) -> None:
    text = path.read_text(encoding="utf-8")
    indexed = " ".join(_sentences(path))
    assert "never indexed" not in indexed
    if "about:" in text.split("---")[1]:
        assert "Front-matter text" not in indexed


def test_the_lint_catches_what_the_issue_reported() -> None:
    assert standalone_rules().openers
    for sentence in (
        "That requirement has a human cost.",
        "It saves a PyTorch team from rewriting everything in JAX, but it is not free.",
        "In return it gets a great deal of throughput.",
        "Therefore the team also picks a cloud.",
        "These devices are fast.",
        "GPUs, on the other hand, can be rented from any major cloud.",
        "On GPUs, by contrast, PyTorch is at home.",
    ):
        assert dangling_opener(sentence), sentence
    assert meta_phrase("These notes compare GPUs and TPUs for practical AI work.")
    for sentence in ("A TPU is an ASIC.", "Italy has data centers.", "Thesis work runs on GPUs.", "Sodium is cheap.",
                     "GPUs, TPUs and CPUs, however fast, wait for slow storage."):
        assert dangling_opener(sentence) is None, sentence

"""Chunking: ids, labels, page spans, heading paths, sizes, overlap and stability."""

from __future__ import annotations

import re
import shutil

import pytest

from common.errors import SourceError
from common.sentences import normalize_ws, split_sentences
from indexer.build import catalog, load_corpus
from indexer.chunking import ChunkParams, chunk_source
from indexer.sources import read_source

LABEL = re.compile(r"^\[(file_gpu\d{3}):c(\d{4})\] (\S+\.md) p(\d+)-(\d+)$")


def test_every_label_matches_the_contract(sources_dir):
    chunks = catalog(sources_dir)
    assert chunks
    for cid, chunk in chunks.items():
        m = LABEL.match(chunk.label)
        assert m, chunk.label
        assert f"{m.group(1)}:c{m.group(2)}" == cid
        assert int(m.group(4)) <= int(m.group(5))


def test_shipped_notes_chunk_layout(sources_dir):
    chunks = [c for c in catalog(sources_dir).values() if c.source_id == "file_gpu001"]
    labels = [c.label for c in chunks]
    assert labels[0] == "[file_gpu001:c0000] gpu_tpu_lesson_notes.md p1-1"
    assert "[file_gpu001:c0002] gpu_tpu_lesson_notes.md p2-2" in labels
    numbers = [int(c.chunk_id[-4:]) for c in chunks]
    assert numbers == list(range(len(chunks)))  # count from 0 within the source


def test_sizes_sentence_boundaries_and_heading_paths(sources_dir):
    params = ChunkParams()
    for chunk in catalog(sources_dir).values():
        if chunk.source_type == "faq":
            continue
        assert len(chunk.text.split()) <= params.max_words * 1.25
        assert chunk.heading_path, chunk.chunk_id
        assert chunk.text == " ".join(chunk.sentences)
        assert chunk.sentences[-1][-1] in ".!?\"')"


def test_overlap_carries_sentences_across_a_cut(tmp_path):
    body = " ".join(f"Sentence number {i} talks about accelerators and data pipelines today." for i in range(60))
    p = tmp_path / "long.md"
    p.write_text(f"---\nid: long\n---\n# One long section\n\n{body}\n", encoding="utf-8")
    src = read_source(p)
    chunks = chunk_source(src, ChunkParams(min_words=40, max_words=60, overlap_sentences=2))
    assert len(chunks) > 3
    for a, b in zip(chunks, chunks[1:]):
        assert a.sentences[-2:] == b.sentences[:2]
    no_overlap = chunk_source(src, ChunkParams(min_words=40, max_words=60, overlap_sentences=0))
    assert all(a.sentences[-1] != b.sentences[0] for a, b in zip(no_overlap, no_overlap[1:]))


def test_params_are_validated():
    with pytest.raises(ValueError):
        ChunkParams(min_words=300, max_words=100)


def test_ids_stable_when_an_unrelated_source_changes(tmp_path, sources_dir):
    copy = tmp_path / "sources"
    shutil.copytree(sources_dir, copy)
    before = {cid: c.text for cid, c in catalog(copy).items() if c.source_id == "file_gpu001"}
    other = copy / "tpu_decision_criteria.md"
    other.write_text(other.read_text(encoding="utf-8") + "\n## Added\n\nA brand new closing paragraph about TPUs.\n", encoding="utf-8")
    (copy / "extra.md").write_text("---\nid: file_gpu099\n---\n# Extra\n\nSome extra note about GPUs.\n", encoding="utf-8")
    after = {cid: c.text for cid, c in catalog(copy).items() if c.source_id == "file_gpu001"}
    assert before == after


def test_faq_sources_chunk_one_entry_each_and_keep_cites(tmp_path, sources_dir):
    d = tmp_path / "s"
    shutil.copytree(sources_dir, d)
    (d / "faq.md").write_text(
        "---\nid: faq_t\ntype: faq\n---\n## Is a GPU flexible?\n\nYes, it runs almost anything.\n"
        "<!-- cites: file_gpu001:c0000 -->\n\n## Is a TPU an ASIC?\n\nYes, Google built it for tensor math.\n",
        encoding="utf-8",
    )
    faq = [c for c in catalog(d).values() if c.source_id == "faq_t"]
    assert [c.heading_path[-1] for c in faq] == ["Is a GPU flexible?", "Is a TPU an ASIC?"]
    assert faq[0].cites == ["file_gpu001:c0000"] and faq[1].cites == []
    (d / "faq.md").write_text("---\nid: faq_t\ntype: faq\n---\n## Q?\n\nA.\n<!-- cites: file_gpu001:c0999 -->\n", encoding="utf-8")
    with pytest.raises(SourceError, match=r"faq\.md: .*cites unknown chunk\(s\) file_gpu001:c0999"):
        load_corpus(d)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("TPUs are fast. GPUs are flexible.", ["TPUs are fast.", "GPUs are flexible."]),
        ("Use e.g. JAX or TensorFlow. Then compile.", ["Use e.g. JAX or TensorFlow.", "Then compile."]),
        ("It is 2.5x faster? Yes!", ["It is 2.5x faster?", "Yes!"]),
        ("  spaced\n text.  ", ["spaced text."]),
    ],
)
def test_sentence_splitter(text, expected):
    assert split_sentences(text) == expected
    assert normalize_ws(" ".join(expected)) in normalize_ws(text)

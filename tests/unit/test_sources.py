"""Parsing sources: front matter, pages, and one-line errors for malformed files."""

from __future__ import annotations

from pathlib import Path

import pytest

from common.errors import SourceError
from indexer.sources import read_source, read_sources


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    p = tmp_path / name
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content, encoding="utf-8")
    return p


GOOD = """---
id: file_test01
title: Test notes
url: https://example.com/test
---

<!-- page 1 -->
# Title

First paragraph of page one. It has two sentences.

- a list item about TPUs

<!-- page 2 -->
## Second

Page two text.
"""


def test_markdown_pages_blocks_and_metadata(tmp_path):
    src = read_source(write(tmp_path, "notes.md", GOOD))
    assert (src.id, src.title, src.url, src.type, src.kind) == (
        "file_test01", "Test notes", "https://example.com/test", "notes", "markdown")
    assert [p.number for p in src.pages] == [1, 2]
    kinds = [(b.kind, b.text) for b in src.pages[0].blocks]
    assert kinds == [
        ("heading", "Title"),
        ("paragraph", "First paragraph of page one. It has two sentences."),
        ("item", "a list item about TPUs"),
    ]
    assert src.pages[1].blocks[0].level == 2
    assert len(src.sha256) == 64


def test_shipped_notes_contract(sources_dir):
    sources = {s.id: s for s in read_sources(sources_dir)}
    notes = sources["file_gpu001"]
    assert notes.file == "gpu_tpu_lesson_notes.md"
    assert notes.url == "https://example.com/gpu-tpu-notes"
    assert [p.number for p in notes.pages] == [1, 2]
    assert "file_gpu002" in sources and sources["file_gpu002"].url


def test_plain_text_pages_split_on_form_feed_and_derive_id(tmp_path):
    src = read_source(write(tmp_path, "Scraped Page.txt", "Page one text.\n\nMore.\fPage two."))
    assert src.id == "txt_Scraped_Page"
    assert [p.number for p in src.pages] == [1, 2]


@pytest.mark.parametrize(
    "name, content, fragment",
    [
        ("noid.md", "---\ntitle: x\n---\nText.", "no 'id'"),
        ("nofm.md", "Just text, no front matter.", "missing front matter"),
        ("empty.md", "", "empty"),
        ("blank.md", "   \n\n", "empty"),
        ("latin1.md", "---\nid: a\n---\nCaf\xe9".encode("latin-1"), "not UTF-8"),
        ("nul.md", b"---\nid: a\n---\nx\x00y", "binary"),
        ("badyaml.md", "---\nid: [unclosed\n---\nText.", "not valid YAML"),
        ("badid.md", "---\nid: has space\n---\nText.", "front matter: id: must be"),
        ("onlyfm.md", "---\nid: a\n---\n# Heading only\n", "no text"),
    ],
)
def test_malformed_source_one_line_error_naming_file(tmp_path, name, content, fragment):
    with pytest.raises(SourceError) as info:
        read_source(write(tmp_path, name, content))
    msg = info.value.one_line()
    assert name in msg and fragment in msg
    assert "\n" not in msg


def test_duplicate_ids_are_rejected(tmp_path):
    write(tmp_path, "a.md", "---\nid: same\n---\nText one.")
    write(tmp_path, "b.md", "---\nid: same\n---\nText two.")
    with pytest.raises(SourceError, match=r"b\.md: duplicate source id 'same' \(also used by a\.md\)"):
        read_sources(tmp_path)


def test_empty_sources_dir(tmp_path):
    with pytest.raises(SourceError, match="no sources"):
        read_sources(tmp_path)


def test_code_fences_and_comments_are_not_text(tmp_path):
    src = read_source(write(tmp_path, "c.md", "---\nid: c\n---\nProse.\n\n```\ncode line\n```\n\n<!-- hidden -->"))
    texts = [b.text for p in src.pages for b in p.blocks]
    assert texts == ["Prose."]

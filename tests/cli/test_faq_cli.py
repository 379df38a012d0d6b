"""``hwbot faq`` end to end: the markdown page, the JSON lines, and one-line errors for bad input."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bot.commands.faq import collect_questions
from bot.faq.page import NOT_COVERED
from tests.harness.clirun import assert_one_line_error, run

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "docs" / "example_faq.md"
KEYS = ["question", "answer", "declined", "citations", "intent"]
CITATION_KEYS = ["label", "chunk_id", "source", "pages", "score"]
SOURCE_LINE = re.compile(r"^- \[(\d+)\] `(\[[A-Za-z0-9_\-]+:c\d{4}\] \S+ p\d+-\d+)`$")


def sections(page: str) -> list[tuple[str, str]]:
    """(heading, body) for each '## ' section of a markdown page."""
    parts = re.split(r"^## (.+)$", page, flags=re.M)
    return [(parts[i].strip(), parts[i + 1]) for i in range(1, len(parts), 2)]


@pytest.fixture(scope="module")
def example_run(tmp_path_factory, built_index):
    """One run writing both the page and the JSON lines (the model loads once for both)."""
    import os

    env = dict(os.environ, HWBOT_INDEX_DIR=str(built_index), HF_HUB_OFFLINE="1")
    out = tmp_path_factory.mktemp("faq") / "faq.md"
    proc = run(["faq", str(EXAMPLE), "--out", str(out), "--json"], env)
    assert proc.returncode == 0, proc.stderr_text
    objs = [json.loads(line) for line in proc.stdout_text.splitlines()]
    return proc, out.read_text(encoding="utf-8"), objs


def test_markdown_page_has_a_heading_answer_and_sources_per_answered_question(example_run):
    proc, page, objs = example_run
    assert page.startswith("# FAQ: answers to the questions in example_faq.md\n")
    found = [q.text for q in collect_questions(EXAMPLE)[0]]
    answered = [o["question"] for o in objs if not o["declined"]]
    secs = sections(page)
    assert [h for h, _ in secs] == answered + [NOT_COVERED]  # document order, the list last
    for heading, body in secs[:-1]:
        assert heading in found
        text, _, sources = body.partition("\nSources:\n")
        numbers = [SOURCE_LINE.match(line) for line in sources.strip().splitlines()]
        assert numbers and all(numbers), body
        assert [int(m.group(1)) for m in numbers] == list(range(1, len(numbers) + 1))
        markers = {int(n) for n in re.findall(r"\[(\d+)\]", text)}
        assert markers == set(range(1, len(numbers) + 1)), body  # every source is referenced, none dangles
        assert "file_gpu" not in text  # inline markers became numbers
    assert "Wrote" in proc.stderr_text and "not covered by the notes" in proc.stderr_text


def test_declined_questions_are_listed_under_not_covered(example_run):
    _, page, objs = example_run
    declined = [o["question"] for o in objs if o["declined"]]
    assert "What is the on-call rotation for the training cluster?" in declined
    assert "How do I request a VPN account for remote work?" in declined
    listed = sections(page)[-1][1]
    items = [line[2:] for line in listed.splitlines() if line.startswith("- ")]
    assert [re.sub(r" \(line \d+\)$", "", i) for i in items] == declined
    assert all(re.search(r"\(line \d+\)$", i) for i in items)


def test_json_lines_follow_the_ask_batch_contract_in_document_order(example_run):
    _, _, objs = example_run
    questions, repeats = collect_questions(EXAMPLE)
    assert repeats >= 1  # the repeated PyTorch question is answered once
    assert [o["question"] for o in objs] == [q.text for q in questions]
    for o in objs:
        assert list(o) == KEYS
        if o["declined"]:
            assert o["citations"] == []
            continue
        assert o["citations"], o["question"]
        for c in o["citations"]:
            assert list(c) == CITATION_KEYS and isinstance(c["score"], float)
            assert c["label"] == f"[{c['chunk_id']}] {c['source']} {c['pages']}"
            assert f"[{c['chunk_id']}]" in o["answer"]
    assert sum(not o["declined"] for o in objs) >= 8


def test_curated_entries_answer_the_faq_questions_they_match(example_run):
    _, page, objs = example_run
    workshop = next(o for o in objs if o["question"].startswith("Why is a GPU called a workshop"))
    ids = [c["chunk_id"] for c in workshop["citations"]]
    assert ids[0].startswith("file_gpu003:") and {"file_gpu001:c0000", "file_gpu001:c0001"} <= set(ids[1:])
    body = dict(sections(page))["Why is a GPU called a workshop and a TPU a factory?"]
    assert "Based on the notes:" in body and "gpu_tpu_faq.md" in body


def test_without_out_or_json_the_page_goes_to_stdout(hwbot_env, tmp_path):
    docs = tmp_path / "small.md"
    docs.write_text("# Ops\n\n- Where can we get TPUs?\n- How do I cook pasta?\n", encoding="utf-8")
    proc = run(["faq", str(docs)], hwbot_env)
    assert proc.returncode == 0, proc.stderr_text
    out = proc.stdout_text
    assert out.startswith("# FAQ: answers to the questions in small.md")
    assert "## Where can we get TPUs?" in out and "Sources:" in out
    assert f"## {NOT_COVERED}" in out and "- How do I cook pasta? (line 4)" in out


def _bad_inputs(tmp: Path) -> list[tuple[str, Path, str]]:
    binary = tmp / "image.md"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    latin = tmp / "latin1.md"
    latin.write_bytes("## Why a TPU?\n\n- Caf\xe9 question?\n".encode("latin-1"))
    empty = tmp / "empty.md"
    empty.write_text("", encoding="utf-8")
    blank = tmp / "blank.md"
    blank.write_text("  \n\n\t\n", encoding="utf-8")
    none = tmp / "none.md"
    none.write_text("# Setup\n\nRun the script.\n\n```\nis this code?\n```\n\nSee https://example.com/a?\n", encoding="utf-8")
    return [
        ("missing", tmp / "missing.md", "no such file"),
        ("directory", tmp, "is a directory"),
        ("binary", binary, "looks binary"),
        ("non-utf8", latin, "not UTF-8 (bad byte on line 3)"),
        ("empty", empty, "the file is empty"),
        ("blank", blank, "the file is empty"),
        ("no questions", none, "no questions found"),
    ]


def test_bad_input_is_one_line_with_exit_code_2(hwbot_env, tmp_path):
    for name, path, fragment in _bad_inputs(tmp_path):
        proc = run(["faq", str(path)], hwbot_env)
        line = assert_one_line_error(proc, 2, fragment)
        assert line.startswith("Error: "), name
        assert proc.stdout_text == "", name


def test_bad_out_path_is_refused_before_answering(hwbot_env, tmp_path):
    docs = tmp_path / "docs.md"
    docs.write_text("- Where can we get TPUs?\n", encoding="utf-8")
    assert_one_line_error(run(["faq", str(docs), "--out", str(tmp_path)], hwbot_env), 2, "is a directory")
    assert_one_line_error(run(["faq", str(docs), "--out", str(tmp_path / "no" / "faq.md")], hwbot_env), 2, "does not exist")
    assert_one_line_error(run(["faq", str(docs), "--out", str(docs)], hwbot_env), 2, "would overwrite")
    assert docs.read_text(encoding="utf-8") == "- Where can we get TPUs?\n"

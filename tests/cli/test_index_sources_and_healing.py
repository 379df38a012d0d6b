"""The index remembers its sources and heals itself, through the real ``hwbot`` process.

``hwbot index --sources DIR`` must stay in force for every later command (they judge
staleness against DIR, not the shipped notes), and a corrupt index is rebuilt by the
next question when its sources are at hand, or named with its rebuild command when not.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from indexer.manifest import current_generation
from tests.harness.clirun import assert_one_line_error, run

pytestmark = pytest.mark.slow

#: A fact only the extra note holds, so an answer citing it proves which sources were used.
MARKER_NOTE = """---
id: file_mark001
title: "Team accelerator reservations"
url: https://example.com/reservations
---

<!-- page 1 -->

# The Quokka reservation

The Quokka reservation is the team's block of TPU v5e chips in the us-central2 region. Jobs on the
Quokka reservation must be written in JAX or PyTorch/XLA, because the Quokka reservation runs only
TPU jobs. The Quokka reservation is renewed every quarter by the platform team.
"""


def _sources_with_marker(shipped: Path, tmp_path: Path) -> Path:
    src = tmp_path / "my-notes"
    shutil.copytree(shipped, src)
    (src / "reservations.md").write_text(MARKER_NOTE, encoding="utf-8")
    return src


def test_index_sources_dir_is_what_ask_answers_from(hwbot_env, index_copy, sources_dir, tmp_path):
    src = _sources_with_marker(sources_dir, tmp_path)
    env = {**hwbot_env, "HWBOT_INDEX_DIR": str(index_copy)}
    built = run(["index", "--sources", str(src)], env)
    assert built.returncode == 0, built.stderr_text
    shipped = len(list(sources_dir.glob("*.md")))
    assert f"{shipped + 1} sources" in built.stdout_text
    proc = run(["ask", "What is the Quokka reservation?", "--json"], env)
    assert proc.returncode == 0, proc.stderr_text
    assert "Updating the index" not in proc.stderr_text  # no rebuild from the shipped notes
    answer = json.loads(proc.stdout_text)
    assert not answer["declined"] and "Quokka" in answer["answer"]
    assert any(c["chunk_id"].startswith("file_mark001:") for c in answer["citations"])
    # A plain `hwbot index` keeps to DIR as well: nothing changed there.
    again = run(["index"], env)
    assert again.returncode == 0 and "already up to date" in again.stdout_text and f"{shipped + 1} sources" in again.stdout_text


def test_truncated_chunks_file_rebuilds_itself(hwbot_env, index_copy):
    chunks = current_generation(index_copy) / "chunks.jsonl"
    data = chunks.read_bytes()
    chunks.write_bytes(data[: len(data) // 2])
    env = {**hwbot_env, "HWBOT_INDEX_DIR": str(index_copy)}
    proc = run(["ask", "Why would a TPU sit idle?", "--json"], env)
    assert proc.returncode == 0, proc.stderr_text
    notices = [line for line in proc.stderr_text.splitlines() if line.strip()]
    assert len(notices) == 1 and "corrupt" in notices[0] and "chunks.jsonl" in notices[0] and "rebuilding" in notices[0]
    assert json.loads(proc.stdout_text)["citations"]
    # The rebuilt index is whole again: the next question loads it without a notice.
    proc = run(["ask", "What is Pallas?", "--json"], env)
    assert proc.returncode == 0 and not proc.stderr_text.strip(), proc.stderr_text


def test_corrupt_index_without_its_sources_names_the_rebuild_command(hwbot_env, index_copy, sources_dir, tmp_path, embedder):
    from indexer.build import build_index
    from knowledge.qa.fixed_texts import query_side_texts

    fixed = query_side_texts()

    src = tmp_path / "gone-notes"
    shutil.copytree(sources_dir, src)
    build_index(src, index_copy, embedder, progress=False, query_texts=fixed)  # reuses every vector; records src
    shutil.rmtree(src)
    vectors = current_generation(index_copy) / "chunk_vectors.npy"
    raw = bytearray(vectors.read_bytes())
    raw[-1] ^= 0xFF  # same size, one flipped byte
    vectors.write_bytes(bytes(raw))
    env = {**hwbot_env, "HWBOT_INDEX_DIR": str(index_copy)}
    line = assert_one_line_error(run(["ask", "What is a TPU?"], env), 3, "chunk_vectors.npy", "sha256", "gone")
    assert f"hwbot index --rebuild --sources DIR --index-dir {index_copy.resolve()}" in line

"""``hwbot ask`` end to end: the JSON contract, batch order, and one-line errors."""

from __future__ import annotations

import json

import pytest

from tests.harness.clirun import assert_one_line_error, run

KEYS = ["question", "answer", "declined", "citations", "intent"]
CITATION_KEYS = ["label", "chunk_id", "source", "pages", "score"]


def check_contract(obj: dict) -> None:
    assert list(obj) == KEYS
    assert isinstance(obj["answer"], str) and isinstance(obj["declined"], bool)
    for c in obj["citations"]:
        assert list(c) == CITATION_KEYS and isinstance(c["score"], float)
        assert c["label"] == f"[{c['chunk_id']}] {c['source']} {c['pages']}"
    if obj["declined"]:
        assert obj["citations"] == []
    else:
        assert obj["citations"]


def test_single_question_json(hwbot_env):
    proc = run(["ask", "Why do TPUs need a fast input pipeline?", "--json"], hwbot_env)
    assert proc.returncode == 0, proc.stderr_text
    obj = json.loads(proc.stdout_text)
    check_contract(obj)
    assert not obj["declined"]
    assert {c["chunk_id"] for c in obj["citations"]} & {"file_gpu001:c0003", "file_gpu002:c0003"}


def test_batch_keeps_order_and_declines_pasta(hwbot_env, tmp_path):
    questions = ["Why would a TPU sit idle?", "How do I cook pasta?", "What is PyTorch/XLA?"]
    batch = tmp_path / "q.txt"
    batch.write_text("\n".join(questions[:2]) + "\n\n" + questions[2] + "\n", encoding="utf-8")
    proc = run(["ask", "--batch", str(batch), "--json"], hwbot_env)
    assert proc.returncode == 0, proc.stderr_text
    objs = [json.loads(line) for line in proc.stdout_text.splitlines()]
    assert [o["question"] for o in objs] == questions
    for o in objs:
        check_contract(o)
    assert [o["declined"] for o in objs] == [False, True, False]


def test_text_mode_has_numbered_sources(hwbot_env):
    proc = run(["ask", "What is Pallas?"], hwbot_env)
    assert proc.returncode == 0, proc.stderr_text
    assert "[1]" in proc.stdout_text and "Sources:" in proc.stdout_text
    assert "[1] [file_gpu" in proc.stdout_text


def test_bad_input_is_one_line(hwbot_env, tmp_path):
    assert_one_line_error(run(["ask", "  "], hwbot_env), 2, "question is empty")
    latin = tmp_path / "latin1.txt"
    latin.write_bytes("Why a TPU?\nCaf\xe9 question?\n".encode("latin-1"))
    assert_one_line_error(run(["ask", "--batch", str(latin), "--json"], hwbot_env), 2, "not UTF-8", "line 2")
    assert_one_line_error(run(["ask", "--batch", str(tmp_path / "missing.txt"), "--json"], hwbot_env), 2, "no such file")
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n", encoding="utf-8")
    assert_one_line_error(run(["ask", "--batch", str(empty), "--json"], hwbot_env), 2, "no questions")
    assert_one_line_error(run(["ask", "--batch", str(empty)], hwbot_env), 2, "--json", "Try 'hwbot ask --help'")


def test_model_mismatch_is_one_line_with_rebuild_hint(hwbot_env, index_copy):
    from indexer.manifest import current_generation

    manifest = current_generation(index_copy) / "manifest.json"
    data = json.loads(manifest.read_text())
    data["probe"] = [-x for x in data["probe"]]
    manifest.write_text(json.dumps(data))
    env = {**hwbot_env, "HWBOT_INDEX_DIR": str(index_copy)}
    assert_one_line_error(run(["ask", "What is a TPU?"], env), 3, "probe", "hwbot index --rebuild")


@pytest.mark.slow  # a whole rebuild in a process
def test_corrupt_index_is_rebuilt_by_itself(hwbot_env, index_copy):
    from indexer.manifest import current_generation

    (current_generation(index_copy) / "manifest.json").write_text("{not json")
    env = {**hwbot_env, "HWBOT_INDEX_DIR": str(index_copy)}
    proc = run(["ask", "What is a TPU?", "--json"], env)
    assert proc.returncode == 0, proc.stderr_text
    assert "Updating the index" in proc.stderr_text and "corrupt" in proc.stderr_text
    check_contract(json.loads(proc.stdout_text))

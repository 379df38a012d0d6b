"""``hwbot recommend --text``: the user's own words, the same engine, what was understood in the JSON."""

from __future__ import annotations

import json

import pytest

from tests.harness.clirun import assert_one_line_error, run

EXAMPLE = "we're on AWS, PyTorch with a few custom CUDA kernels, 8 GPUs, the model changes every week"


@pytest.mark.slow
def test_the_issue_example_gives_gpu_with_the_understood_fields(hwbot_env) -> None:  # type: ignore[no-untyped-def]
    proc = run(["recommend", "--text", EXAMPLE, "--json"], hwbot_env)
    assert proc.returncode == 0, proc.stderr_text
    data = json.loads(proc.stdout_text)
    assert data["recommendation"] == "gpu"
    assert data["profile"]["cloud"] == "other_single_cloud" and data["profile"]["custom_kernels"] == "some"
    assert data["evidence"]["scale"] == "8 GPUs"
    assert data["reasons"] and all(r["citations"] for r in data["reasons"])


@pytest.mark.slow
def test_empty_text_is_one_line_exit_2(hwbot_env) -> None:  # type: ignore[no-untyped-def]
    assert_one_line_error(run(["recommend", "--text", "  "], hwbot_env), 2, "--text is empty")


@pytest.mark.slow
def test_the_heads_fill_a_paraphrase_with_its_words_and_confidence(hwbot_env) -> None:  # type: ignore[no-untyped-def]
    text = "JAX shop. all our hardware sits in our own basement rack room, public cloud is not allowed"
    proc = run(["recommend", "--text", text, "--json"], hwbot_env)
    assert proc.returncode == 0 and proc.stderr_text == "", proc.stderr_text
    data = json.loads(proc.stdout_text)
    assert isinstance(data["confidence"], float)  # the contract's own confidence is untouched
    assert data["profile"]["cloud"] == "on_prem" and data["profile"]["framework"] == "jax"
    assert data["evidence"]["cloud"] == "all our hardware sits in our own basement rack room, public cloud is not allowed"
    assert 0 < data["field_confidence"]["cloud"] <= 1


@pytest.mark.slow
def test_without_an_index_the_rules_read_alone_and_say_so(hwbot_env, tmp_path) -> None:  # type: ignore[no-untyped-def]
    env = dict(hwbot_env, HWBOT_INDEX_DIR=str(tmp_path / "none"))
    proc = run(["recommend", "--text", "we're on AWS. we're on GCP.", "--json"], env)
    assert proc.returncode == 0
    assert proc.stderr_text.startswith("Note: reading your words with the rules only") and proc.stderr_text.count("\n") == 1
    data = json.loads(proc.stdout_text)
    assert "cloud" not in data["profile"] and len(data["confirm"]) == 1 and "cloud" in data["confirm"][0]


@pytest.mark.slow
def test_eval_scores_a_message_batch_with_each_extractor_variant(hwbot_env, tmp_path) -> None:  # type: ignore[no-untyped-def]
    batch = tmp_path / "batch.jsonl"
    rows = [{"id": "m1", "text": "we're on AWS and all our hardware sits in our own basement rack room", "expect": {"cloud": "on_prem"}},
            {"id": "m2", "text": "JAX shop", "expect": {"framework": "jax"}}]
    batch.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    got = {}
    for mode in ("rules", "heads", "combined"):
        proc = run(["eval", "--fresh", str(batch), "--extractor", mode, "--json"], hwbot_env)
        assert proc.returncode == 0, proc.stderr_text
        got[mode] = json.loads(proc.stdout_text)
    assert [r["got"] for r in got["rules"]["items"]] == [{"cloud": "other_single_cloud"}, {"framework": "jax"}]
    assert got["rules"]["items"] == got["combined"]["items"]  # the rules set cloud: the heads leave it
    assert got["heads"]["recall"]["n"] == 2 and got["heads"]["items"][0]["got"].get("cloud") != "other_single_cloud"


def test_a_leave_one_batch_out_of_one_batch_is_a_one_line_error(hwbot_env, tmp_path) -> None:  # type: ignore[no-untyped-def]
    batch = tmp_path / "only.jsonl"
    batch.write_text(json.dumps({"id": "m1", "text": "JAX shop", "expect": {"framework": "jax"}}) + "\n", encoding="utf-8")
    assert_one_line_error(run(["eval", "--lobo", str(batch)], hwbot_env), 1, "--lobo needs at least two batches")

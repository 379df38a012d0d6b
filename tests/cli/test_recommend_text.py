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

"""The ONNX and sentence-transformers query paths give the same answers, byte for byte.

The whole dev set goes through the real ``hwbot ask --batch --json`` twice: once on the
session index as built (ONNX), once on a copy whose recorded export is missing, which
must fall back to sentence-transformers with exactly one notice line on stderr. A copy
pointing at a real ONNX model of the wrong kind must fall back the same way.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from indexer.manifest import current_generation
from indexer.query_encoder import FALLBACK_NOTICE
from tests.cli.test_lazy_imports import MARK, run_answering
from tests.harness.onnx_models import write_wrong_model


def _dev_questions(path: Path) -> Path:
    from knowledge.evaluation import load_dev_set

    path.write_text("\n".join(item.question for item in load_dev_set()) + "\n", encoding="utf-8")
    return path


def _point_encoder_at(index_dir: Path, model: Path) -> None:
    gen = current_generation(index_dir)
    assert gen is not None
    manifest = json.loads((gen / "manifest.json").read_text(encoding="utf-8"))
    manifest["encoder"]["path"] = str(model)
    if model.exists():
        manifest["encoder"]["size"] = model.stat().st_size
    (gen / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


def _notices(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.strip() and not line.startswith(MARK)]


@pytest.mark.slow
def test_dev_set_answers_are_byte_identical_on_both_paths(tmp_path: Path, built_index: Path, index_copy: Path) -> None:
    questions = _dev_questions(tmp_path / "dev.txt")
    onnx, onnx_heavy = run_answering(["ask", "--batch", str(questions), "--json"], built_index, tmp_path)
    assert onnx.returncode == 0, onnx.stderr[-500:]
    assert onnx_heavy == [] and _notices(onnx.stderr) == []

    _point_encoder_at(index_copy, tmp_path / "gone" / "model.onnx")
    st, st_heavy = run_answering(["ask", "--batch", str(questions), "--json"], index_copy, tmp_path)
    assert st.returncode == 0, st.stderr[-500:]
    assert "torch" in st_heavy  # it really answered on sentence-transformers
    notices = _notices(st.stderr)
    assert len(notices) == 1 and notices[0].startswith(FALLBACK_NOTICE) and "is missing" in notices[0]

    lines = onnx.stdout.splitlines()
    assert len(lines) == len(questions.read_text(encoding="utf-8").splitlines())
    assert onnx.stdout == st.stdout


def test_a_mismatched_export_falls_back_with_one_line(tmp_path: Path, index_copy: Path) -> None:
    _point_encoder_at(index_copy, write_wrong_model(tmp_path / "other-model.onnx"))
    proc, heavy = run_answering(["ask", "Why are GPUs the default accelerator?", "--json"], index_copy, tmp_path)
    assert proc.returncode == 0, proc.stderr[-500:]
    assert json.loads(proc.stdout)["citations"]  # still answered, on the fallback
    notices = _notices(proc.stderr)
    assert len(notices) == 1 and notices[0].startswith(FALLBACK_NOTICE) and "mismatched model" in notices[0]
    assert "torch" in heavy

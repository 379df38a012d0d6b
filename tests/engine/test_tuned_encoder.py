"""The extractor's encoder: the shipped model with the committed fine-tuned layers, exported to ONNX.

Real model, real export (once per session, into the session's model cache): the ONNX vectors
must be the tuned torch model's, not the plain model's, and every way the overlay can be
wrong is one line, never a traceback.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from common.errors import ModelMismatchError
from indexer.embedder import Embedder, apply_overlay
from indexer.query_encoder import EncoderUnavailable
from indexer.tuned_encoder import tuned_encoder_for_index_dir
from knowledge.index import clause_encoder
from knowledge.recommend.learned.heads import HEADS_DIR, OVERLAY_FILE

TEXTS = ["we rip out the decoder every couple of days", "nobody here has written JAX", "8x A100 on AWS, prod since March"]


def test_the_onnx_clause_encoder_is_the_tuned_model_not_the_plain_one(built_index: Path, embedder: Embedder) -> None:
    onnx = clause_encoder(built_index).encode(TEXTS)
    tuned = Embedder(overlay=HEADS_DIR / OVERLAY_FILE).encode(TEXTS, progress=False)
    plain = embedder.encode(TEXTS, progress=False)
    assert np.min(np.sum(onnx * tuned, axis=1)) > 0.99999
    assert np.max(np.sum(onnx * plain, axis=1)) < 0.99  # the overlay changed what the vectors say


def test_a_missing_or_broken_overlay_is_one_line(built_index: Path, tmp_path: Path, embedder: Embedder) -> None:
    with pytest.raises(EncoderUnavailable, match=r"^has no fine-tuned layers to load \(gone\.npz is missing\)$"):
        tuned_encoder_for_index_dir(built_index, tmp_path / "gone.npz")
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"not a zip")
    with pytest.raises(EncoderUnavailable, match=r"^with the fine-tuned layers is not exported yet"):
        tuned_encoder_for_index_dir(built_index, garbage, export=False)
    module = embedder.model[0].auto_model
    with pytest.raises(ModelMismatchError, match="garbage.npz are unreadable"):
        apply_overlay(module, garbage)
    foreign = tmp_path / "foreign.npz"
    np.savez(foreign, **{"encoder.layer.9.output.dense.weight": np.zeros((2, 2), dtype=np.float16)})
    before = module.encoder.layer[5].output.dense.weight.detach().clone()
    with pytest.raises(ModelMismatchError, match=r"foreign.npz do not fit this model \(encoder\.layer\.9"):
        apply_overlay(module, foreign)
    assert bool((module.encoder.layer[5].output.dense.weight == before).all())  # nothing applied

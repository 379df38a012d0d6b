"""A learned model's files: ``manifest.json`` (validated by the model's own pydantic class) and
``weights.npy``, side by side in one data directory. One reader and one writer, so the domain
gate and the ask-type model (and the next model learned from labelled data) keep one layout."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypeVar

import numpy as np
from pydantic import BaseModel

__all__ = ["read_weights_dir", "write_weights_dir"]

M = TypeVar("M", bound=BaseModel)


def read_weights_dir(directory: Path, manifest_type: type[M]) -> tuple[M, np.ndarray]:
    """The validated manifest and the weights (raises what pydantic, json or numpy raise on bad files)."""
    manifest = manifest_type.model_validate(json.loads((directory / "manifest.json").read_text(encoding="utf-8")))
    return manifest, np.load(directory / "weights.npy", allow_pickle=False)


def write_weights_dir(directory: Path, manifest: BaseModel, weights: np.ndarray) -> None:
    """Write the weights (float32: the precision they are used at) and the manifest."""
    directory.mkdir(parents=True, exist_ok=True)
    np.save(directory / "weights.npy", weights.astype(np.float32))
    (directory / "manifest.json").write_text(json.dumps(manifest.model_dump(), indent=1) + "\n", encoding="utf-8")

"""The dev set, retrieval and abstention metrics, calibration and CI floors.

Names load lazily (PEP 562): importing one light module of this package (a type, a
loader) must not pull in FAISS, BM25 and numpy with the engine.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS: dict[str, str] = {
    "MODES": "knowledge.evaluation.evaluate",
    "DevItem": "knowledge.evaluation.evaluate",
    "Floors": "knowledge.evaluation.evaluate",
    "Metrics": "knowledge.evaluation.evaluate",
    "calibrate": "knowledge.evaluation.evaluate",
    "calibrate_curated": "knowledge.evaluation.evaluate",
    "evaluate": "knowledge.evaluation.evaluate",
    "load_dev_set": "knowledge.evaluation.evaluate",
    "load_floors": "knowledge.evaluation.evaluate",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)

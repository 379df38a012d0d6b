"""Lazy package exports (PEP 562), shared by the packages whose engines are heavy to import.

``knowledge.qa`` and ``knowledge.evaluation`` export many names, but importing one light
module of theirs (a type, a loader) must not pull in FAISS, BM25 and NumPy with the engine.
Each package keeps its name -> module table as data and takes its ``__getattr__`` from here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_getattr"]


def lazy_getattr(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``exports[name]`` on first use of ``name``."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module), name)

    return __getattr__

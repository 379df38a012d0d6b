"""Process-wide access to the question engine: resolve paths, build the index if needed, load once.

Every front end (CLI, REPL, Slack, FAQ) calls :func:`get_engine`, so a process loads the
model, the index and BM25 once per index directory, however many questions it answers.
Paths come from one :class:`~common.settings.HwbotSettings`, passed in or read once.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from common.settings import HwbotSettings

if TYPE_CHECKING:  # pragma: no cover
    from knowledge.qa.engine import QAEngine

__all__ = ["resolve_index_dir", "resolve_sources_dir", "get_engine", "prefetch_encoder"]

_engines: dict[Path, "QAEngine"] = {}
_lock = threading.Lock()


def resolve_index_dir(index_dir: Path | None = None, settings: HwbotSettings | None = None) -> Path:
    """``--index-dir`` if given, else ``HWBOT_INDEX_DIR``, else the per-user cache."""
    return Path(index_dir) if index_dir else (settings or HwbotSettings()).index_dir


def resolve_sources_dir(sources: Path | None = None, settings: HwbotSettings | None = None) -> Path:
    """``--sources`` if given, else the configured (by default the shipped) notes."""
    return Path(sources) if sources else (settings or HwbotSettings()).sources_dir


def prefetch_encoder(index_dir: Path | None = None, settings: HwbotSettings | None = None) -> None:
    """Start loading the index's ONNX query encoder in the background (cold-start overlap)."""
    from indexer.query_encoder import prefetch_query_encoder

    prefetch_query_encoder(resolve_index_dir(index_dir, settings))


def get_engine(
    index_dir: Path | None = None, *, progress: bool | None = None, settings: HwbotSettings | None = None
) -> "QAEngine":
    """The shared engine for an index dir, opened (and the index built or updated) on first use."""
    settings = settings or HwbotSettings()
    key = resolve_index_dir(index_dir, settings).resolve()
    with _lock:
        engine = _engines.get(key)
        if engine is None:
            from knowledge.qa.engine import QAEngine

            engine = QAEngine.open(key, sources_dir=resolve_sources_dir(None, settings), progress=progress)
            _engines[key] = engine
        return engine

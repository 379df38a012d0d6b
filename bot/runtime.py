"""Process-wide access to the engine: resolve paths, build the index if needed, load once.

Every front end (CLI, REPL, Slack, FAQ) calls :func:`get_engine`, so a process loads the
model, the index and BM25 exactly once, however many questions it answers.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from indexer.settings import IndexSettings

if TYPE_CHECKING:  # pragma: no cover
    from knowledge.qa import QAEngine

__all__ = ["resolve_index_dir", "resolve_sources_dir", "get_engine", "run_index"]

_engine: "QAEngine | None" = None
_lock = threading.Lock()


def resolve_index_dir(index_dir: Path | None = None) -> Path:
    return Path(index_dir) if index_dir else IndexSettings().index_dir


def resolve_sources_dir(sources: Path | None = None) -> Path:
    from knowledge.paths import SOURCES_DIR

    return Path(sources) if sources else SOURCES_DIR


def get_engine(index_dir: Path | None = None, *, progress: bool | None = None) -> "QAEngine":
    """The shared engine, opened (and the index built or updated) on first use."""
    global _engine
    with _lock:
        if _engine is None:
            from knowledge.qa import QAEngine

            _engine = QAEngine.open(resolve_index_dir(index_dir), sources_dir=resolve_sources_dir(), progress=progress)
        return _engine


def run_index(sources: Path | None, index_dir: Path | None, *, rebuild: bool = False, quiet_if_fresh: bool = False) -> None:
    """``hwbot index``: build or update, then print one summary line."""
    from indexer.build import build_index, staleness
    from indexer.embedder import Embedder

    src = resolve_sources_dir(sources)
    dst = resolve_index_dir(index_dir)
    if quiet_if_fresh and not rebuild and staleness(dst, src) is None:
        return
    report = build_index(src, dst, Embedder(), rebuild=rebuild, progress=None if sys.stderr.isatty() else False)
    state = "" if report.changed else " (already up to date)"
    print(f"Index{state}: {report.summary()}")

"""``hwbot index``: build or incrementally update the index, then print one summary line."""

from __future__ import annotations

import sys
from pathlib import Path

from bot.runtime import resolve_index_dir, resolve_sources_dir

__all__ = ["run_index"]


def run_index(sources: Path | None, index_dir: Path | None, *, rebuild: bool = False, quiet_if_fresh: bool = False) -> None:
    """Build or update; with ``quiet_if_fresh`` print nothing when nothing changed (``make repl``)."""
    from indexer.build import build_index, staleness
    from indexer.embedder import Embedder

    src = resolve_sources_dir(sources)
    dst = resolve_index_dir(index_dir)
    if quiet_if_fresh and not rebuild and staleness(dst, src) is None:
        return
    report = build_index(src, dst, Embedder(), rebuild=rebuild, progress=None if sys.stderr.isatty() else False)
    state = "" if report.changed else " (already up to date)"
    print(f"Index{state}: {report.summary()}")

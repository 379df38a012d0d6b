"""``hwbot index``: build or incrementally update the index, then print one summary line.

Without ``--sources`` the index is updated from the dir it was last built from (see
``bot.engines.resolve_sources_dir``); ``--sources DIR`` switches it to DIR, and every
later command judges staleness against DIR.
"""

from __future__ import annotations

import sys
from pathlib import Path

from bot.engines import resolve_index_dir, resolve_sources_dir
from common.settings import HwbotSettings

__all__ = ["run_index"]


def run_index(
    sources: Path | None,
    index_dir: Path | None,
    *,
    rebuild: bool = False,
    quiet_if_fresh: bool = False,
    settings: HwbotSettings | None = None,
) -> None:
    """Build or update; with ``quiet_if_fresh`` print nothing when nothing changed (``make repl``)."""
    from indexer.build import build_index, staleness
    from indexer.embedder import Embedder

    settings = settings or HwbotSettings()
    dst = resolve_index_dir(index_dir, settings)
    src = resolve_sources_dir(sources, settings, dst)
    if quiet_if_fresh and not rebuild and staleness(dst, src) is None:
        return
    report = build_index(src, dst, Embedder(), rebuild=rebuild, progress=None if sys.stderr.isatty() else False)
    state = "" if report.changed else " (already up to date)"
    print(f"Index{state}: {report.summary()}")

"""``hwbot index``: build or incrementally update the index, then print one summary line.

Without ``--sources`` the index is updated from ``HWBOT_SOURCES_DIR``, else the dir it
was last built from, else the shipped notes (``indexer.lifecycle`` decides);
``--sources DIR`` switches it to DIR, and every later command judges staleness against DIR.
"""

from __future__ import annotations

import sys
from pathlib import Path

from common.settings import HwbotSettings

__all__ = ["run_index"]


def run_index(
    settings: HwbotSettings,
    sources: Path | None,
    index_dir: Path | None,
    *,
    rebuild: bool = False,
    quiet_if_fresh: bool = False,
) -> None:
    """Build or update; with ``quiet_if_fresh`` print nothing when nothing changed (``make repl``)."""
    from knowledge.index import update_index

    report = update_index(
        Path(index_dir or settings.index_dir),
        sources or settings.sources_dir,
        rebuild=rebuild,
        only_if_stale=quiet_if_fresh,
        progress=None if sys.stderr.isatty() else False,
        encoder_cache=settings.model_cache_dir,
    )
    if report is None:
        return
    state = "" if report.changed else " (already up to date)"
    print(f"Index{state}: {report.summary()}")

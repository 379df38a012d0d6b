"""Process-wide access to the question engine: resolve paths, build the index if needed, load once.

Every front end (CLI, REPL, Slack, FAQ) calls :func:`get_engine`, so a process loads the
model, the index and BM25 once per index directory, however many questions it answers.
Paths come from the one :class:`~common.settings.HwbotSettings` that ``bot.cli`` builds
at start-up and passes down; only a caller with none (a library user) gets one read here.

Which notes an index is judged against: ``--sources`` when given, else
``HWBOT_SOURCES_DIR`` when set, else the directory the index was built from (so
``hwbot index --sources DIR`` is not undone by the next ``ask``), else the shipped notes.

A corrupt index rebuilds itself when its sources are at hand: one notice line on
stderr, a progress bar, then the answer. When they are not, the one-line error (exit 3)
names the command that rebuilds it.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from common.errors import IndexCorruptError
from common.settings import HwbotSettings

if TYPE_CHECKING:  # pragma: no cover
    from knowledge.qa.service import QAEngine

__all__ = ["resolve_index_dir", "resolve_sources_dir", "get_engine", "heal_hint", "prefetch_encoder"]

_engines: dict[Path, "QAEngine"] = {}
_lock = threading.Lock()


def resolve_index_dir(index_dir: Path | None = None, settings: HwbotSettings | None = None) -> Path:
    """``--index-dir`` if given, else ``HWBOT_INDEX_DIR``, else the per-user cache."""
    return Path(index_dir) if index_dir else (settings or HwbotSettings()).index_dir


def resolve_sources_dir(
    sources: Path | None = None, settings: HwbotSettings | None = None, index_dir: Path | None = None
) -> Path:
    """The notes an index is built from or judged against (see the module docstring).

    Reading the recorded dir needs only the manifest, never the model.
    """
    if sources:
        return Path(sources)
    settings = settings or HwbotSettings()
    if "sources_dir" not in settings.model_fields_set and index_dir is not None:
        from indexer.build import recorded_sources_dir

        recorded = recorded_sources_dir(index_dir)
        if recorded is not None:
            return recorded
    return settings.sources_dir


def heal_hint(index_dir: Path, sources_dir: Path) -> str:
    """The exact command that rebuilds this index from these sources."""
    return f"run 'hwbot index --rebuild --sources {sources_dir} --index-dir {index_dir}'"


def _open_engine(index_dir: Path, sources_dir: Path, progress: bool | None) -> "QAEngine":
    """Open the engine; rebuild a corrupt index first when its sources are at hand."""
    from knowledge.qa.service import QAEngine

    have_sources = sources_dir.is_dir()
    try:
        # With the sources gone the index is used as built: there is nothing to update it from.
        return QAEngine.open(index_dir, sources_dir=sources_dir, progress=progress, auto_build=have_sources)
    except IndexCorruptError as exc:
        if not have_sources:
            raise IndexCorruptError(
                f"{exc.message}; its sources {sources_dir} are gone", hint=heal_hint(index_dir, Path("DIR"))
            ) from None
        reason = exc.message
    from indexer.build import build_index
    from indexer.embedder import Embedder

    print(f"The index is corrupt ({reason}); rebuilding it from {sources_dir}…", file=sys.stderr)
    embedder = Embedder()
    build_index(sources_dir, index_dir, embedder, rebuild=True, progress=progress)
    try:
        return QAEngine.open(index_dir, sources_dir=sources_dir, embedder=embedder, progress=progress)
    except IndexCorruptError as exc:  # e.g. the disk corrupts what was just written
        raise IndexCorruptError(exc.message, hint=heal_hint(index_dir, sources_dir)) from None


def prefetch_encoder(index_dir: Path | None = None, settings: HwbotSettings | None = None) -> None:
    """Start loading the index's ONNX query encoder in the background (cold-start overlap)."""
    from indexer.query_encoder import prefetch_query_encoder

    prefetch_query_encoder(resolve_index_dir(index_dir, settings))


def get_engine(
    index_dir: Path | None = None, *, progress: bool | None = None, settings: HwbotSettings | None = None
) -> "QAEngine":
    """The shared engine for an index dir, opened (and the index built, updated or healed) on first use."""
    settings = settings or HwbotSettings()
    key = resolve_index_dir(index_dir, settings).resolve()
    with _lock:
        engine = _engines.get(key)
        if engine is None:
            engine = _open_engine(key, resolve_sources_dir(None, settings, key), progress)
            _engines[key] = engine
        return engine

"""The index's lifecycle, in one place: which notes it follows, freshness, build, heal, load.

Two entry points, one per command family:

* :func:`update_index` (``hwbot index``): build or incrementally update, or nothing when
  asked only if stale and the index is fresh;
* :func:`open_index` (every command that answers): make sure the index exists and is fresh
  (building or updating it, with a progress bar, when its notes changed), then load it; a
  corrupt index rebuilds itself when its notes are at hand (one notice line on stderr), and
  when they are not, the one-line error (exit 3) names the command that rebuilds it.

Which notes an index follows: the ``sources`` the caller names (``--sources`` or
``HWBOT_SOURCES_DIR``), else the dir the index was built from (so ``hwbot index --sources
DIR`` is not undone by the next ``ask``), else ``default_sources`` (the shipped notes).

The live manifest is read once per call (:class:`~indexer.freshness.IndexStatus`) and that
reading is passed to the build and the load; only a build re-reads it, under the lock, when
another process swapped in a new generation meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from common.errors import IndexCorruptError
from common.textio import stderr_line
from indexer.embedder import Embedder
from indexer.freshness import IndexStatus
from indexer.ondisk import Store, load_store

if TYPE_CHECKING:  # pragma: no cover
    from indexer.build import BuildReport


__all__ = ["OpenedIndex", "open_index", "update_index", "heal_hint"]


def heal_hint(index_dir: Path, sources_dir: Path) -> str:
    """The exact command that rebuilds this index from these sources."""
    return f"run 'hwbot index --rebuild --sources {sources_dir} --index-dir {index_dir}'"


@dataclass(frozen=True)
class OpenedIndex:
    """A loaded index, and the sentence-transformers model when the caller gave one or a heal loaded it."""

    store: Store
    embedder: Embedder | None = None


def update_index(
    index_dir: Path,
    sources: Path | None,
    *,
    default_sources: Path,
    rebuild: bool = False,
    only_if_stale: bool = False,
    progress: bool | None = None,
    embedder: Embedder | None = None,
    encoder_cache: Path | None = None,
    query_texts: Sequence[str] | None = None,
) -> BuildReport | None:
    """Build or update the index; None when ``only_if_stale`` and it is fresh (nothing done, no model loaded).

    ``query_texts`` are the answering side's fixed texts, embedded into the generation (None:
    not judged, and a build embeds none).
    """
    from indexer.build import build_index  # imported only when a build may run (a fresh index never needs it)

    status = IndexStatus.read(index_dir)
    sources_dir = status.sources_dir(sources, default_sources)
    if only_if_stale and not rebuild and status.staleness(sources_dir, query_texts=query_texts) is None:
        return None
    return build_index(
        sources_dir, index_dir, embedder or Embedder(), rebuild=rebuild, progress=progress, status=status, encoder_cache=encoder_cache,
        query_texts=query_texts or (),
    )


def open_index(
    index_dir: Path,
    sources: Path | None = None,
    *,
    default_sources: Path,
    embedder: Embedder | None = None,
    auto_build: bool = True,
    progress: bool | None = None,
    announce: Callable[[str], object] = stderr_line,
    encoder_cache: Path | None = None,
    query_texts: Sequence[str] | None = None,
) -> OpenedIndex:
    """The loaded index, built, updated or healed first when ``auto_build`` and its notes are at hand.

    With ``auto_build=False`` the index is loaded as it is (a missing or corrupt one raises).
    ``announce`` takes the one line that says why a build starts; ``encoder_cache`` is where a
    build exports the ONNX query encoder (default: the per-user model cache); ``query_texts``
    are the answering side's fixed texts (:mod:`indexer.query_texts`), embedded by any build.
    """
    status = IndexStatus.read(index_dir)
    sources_dir = status.sources_dir(sources, default_sources)
    # With the sources gone the index is used as built: there is nothing to update it from.
    have_sources = auto_build and sources_dir.is_dir()
    try:
        if have_sources:
            reason = status.staleness(sources_dir, query_texts=query_texts)
            if reason is not None:
                from indexer.build import build_index  # only now: a fresh index never loads the build
                # build_index re-checks under the index lock, so a build another process just
                # finished is not repeated.
                announce(f"Updating the index ({reason})…")
                build_index(
                    sources_dir, index_dir, embedder or Embedder(), progress=progress, status=status, encoder_cache=encoder_cache,
                    query_texts=query_texts or (),
                )
                status = IndexStatus(index_dir, None, None, "rebuilt")  # the load reads the new generation
        return OpenedIndex(load_store(index_dir, generation=status.generation, manifest=status.manifest), embedder)
    except IndexCorruptError as exc:
        if not auto_build:
            raise
        if not have_sources:
            raise IndexCorruptError(
                f"{exc.message}; its sources {sources_dir} are gone", hint=heal_hint(index_dir, Path("DIR"))
            ) from None
        reason = exc.message
    announce(f"The index is corrupt ({reason}); rebuilding it from {sources_dir}…")
    from indexer.build import build_index
    embedder = embedder or Embedder()
    build_index(sources_dir, index_dir, embedder, rebuild=True, progress=progress, encoder_cache=encoder_cache, query_texts=query_texts or ())
    try:
        return OpenedIndex(load_store(index_dir), embedder)
    except IndexCorruptError as exc:  # e.g. the disk corrupts what was just written
        raise IndexCorruptError(exc.message, hint=heal_hint(index_dir, sources_dir)) from None

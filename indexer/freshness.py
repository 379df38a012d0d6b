"""Whether the index matches its notes: the live manifest, read once, and what follows from it.

:class:`IndexStatus` reads ``CURRENT`` and the live manifest once; every later question
about that index (which notes it was built from, whether it is stale, what a build can
reuse) is answered from that one reading, which :mod:`indexer.build` and
:mod:`indexer.lifecycle` pass along. Nothing here loads the model or the vectors.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from common.errors import IndexStoreError
from indexer.chunking import ChunkParams
from indexer.embedder import model_package_version
from indexer.forms import forms_sha256
from indexer.manifest import Manifest, current_generation, read_manifest
from indexer.query_texts import query_texts_sha256
from indexer.sources import SOURCE_SUFFIXES

__all__ = ["IndexStatus", "why_stale", "staleness", "recorded_sources_dir"]


def _source_hashes(sources_dir: Path) -> dict[str, str]:
    """file name -> sha256 of every source file; used only when the sources are not parsed anyway."""
    out = {}
    for p in sorted(sources_dir.iterdir()):
        if p.is_file() and p.suffix.lower() in SOURCE_SUFFIXES:
            out[p.name] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def why_stale(
    manifest: Manifest, sources_dir: Path, current: dict[str, str], params: ChunkParams, forms_sha: str | None = None,
    query_sha: str | None = None,
) -> str | None:
    """Why an index with this manifest does not match these sources (hashed as ``current``).

    ``forms_sha`` and ``query_sha`` (the query-side texts, :mod:`indexer.query_texts`) are
    judged only when given: a caller that does not know them does not judge them.
    """
    if manifest.chunker != params:
        return "chunking parameters changed"
    if manifest.model.package_version != model_package_version():
        return "embedding model package changed"
    if manifest.encoder is None:
        return "the ONNX query encoder is not exported yet"
    if manifest.sources_dir != str(sources_dir.resolve()):
        return f"sources are now read from {sources_dir}"
    stored = {s.file: s.sha256 for s in manifest.sources}
    if stored != current:
        changed = sorted(set(stored.items()) ^ set(current.items()))
        names = sorted({name for name, _ in changed})
        return "sources changed: " + ", ".join(names)
    if forms_sha is not None and manifest.forms_sha256 != forms_sha:
        return "question forms changed"
    if query_sha is not None and manifest.query_texts_sha256 != query_sha:
        return "the answering side's fixed texts changed"
    return None


@dataclass(frozen=True)
class IndexStatus:
    """The live generation of an index dir as read once: its manifest, or why there is none usable."""

    index_dir: Path
    generation: Path | None
    manifest: Manifest | None
    #: why there is no usable manifest ("no index yet", "... is corrupt"); "" when there is one
    problem: str = ""

    @classmethod
    def read(cls, index_dir: Path) -> "IndexStatus":
        try:
            gen = current_generation(index_dir)
            if gen is None:
                return cls(index_dir, None, None, "no index yet")
            return cls(index_dir, gen, read_manifest(gen))
        except IndexStoreError as exc:
            return cls(index_dir, None, None, exc.message)

    def current(self) -> "IndexStatus":
        """This reading if ``CURRENT`` still names the same generation, else a new one.

        Called under the index lock: another process may have swapped in a generation since.
        Only the one-line pointer is read again when nothing changed.
        """
        try:
            same = self.manifest is not None and current_generation(self.index_dir) == self.generation
        except IndexStoreError:
            same = False
        return self if same else IndexStatus.read(self.index_dir)

    def recorded_sources_dir(self) -> Path | None:
        """The sources dir the live index was built from, or None when there is no readable index."""
        if self.manifest is None or not self.manifest.sources_dir:
            return None
        return Path(self.manifest.sources_dir)

    def sources_dir(self, explicit: Path | None, default: Path) -> Path:
        """The notes this index follows: ``explicit`` (``--sources``, ``HWBOT_SOURCES_DIR``) when given,
        else the dir it was built from (so ``hwbot index --sources DIR`` is not undone by the next
        ``ask``), else ``default`` (the shipped notes)."""
        return Path(explicit) if explicit else (self.recorded_sources_dir() or Path(default))

    def staleness(
        self, sources_dir: Path | None = None, params: ChunkParams | None = None, query_texts: Sequence[str] | None = None
    ) -> str | None:
        """Why the index needs (re)building, or None when it is fresh. Needs no model.

        ``sources_dir=None`` judges the index against the dir it was built from. When that
        dir is gone the index is used as built (there is nothing to rebuild it from).
        ``query_texts``, when given, must be the ones the generation embedded.
        """
        if self.manifest is None:
            return self.problem
        if sources_dir is None:
            recorded = self.recorded_sources_dir()
            if recorded is None or not recorded.is_dir():
                return None
            sources_dir = recorded
        current = _source_hashes(sources_dir) if sources_dir.is_dir() else {}
        forms_sha = forms_sha256(sources_dir) if sources_dir.is_dir() else ""
        query_sha = None if query_texts is None else query_texts_sha256(query_texts)
        return why_stale(self.manifest, sources_dir, current, params or ChunkParams(), forms_sha, query_sha)


def staleness(index_dir: Path, sources_dir: Path | None = None, params: ChunkParams | None = None) -> str | None:
    """:meth:`IndexStatus.staleness` of a fresh reading (for callers that ask once)."""
    return IndexStatus.read(index_dir).staleness(sources_dir, params)


def recorded_sources_dir(index_dir: Path) -> Path | None:
    """:meth:`IndexStatus.recorded_sources_dir` of a fresh reading (for callers that ask once)."""
    return IndexStatus.read(index_dir).recorded_sources_dir()

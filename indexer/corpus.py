"""The corpus as chunks, computed from the sources alone: no model, no NumPy, no FAISS.

Both the index build and cheap consumers (the scoring rules validating their
citations inside a sub-second ``hwbot recommend``) need the exact same chunks, so the
read → clean → chunk pipeline lives here once, importable without heavy libraries.
"""

from __future__ import annotations

from pathlib import Path

from common.errors import SourceError
from indexer.chunking import Chunk, ChunkParams, chunk_source
from indexer.cleaning import clean_source
from indexer.sources import Source, read_sources

__all__ = ["load_corpus", "catalog"]


def load_corpus(sources_dir: Path, params: ChunkParams | None = None) -> tuple[list[Source], list[Chunk]]:
    """Parse, clean and chunk every source. Pure Python: no model, no torch."""
    params = params or ChunkParams()
    sources = read_sources(sources_dir)
    chunks: list[Chunk] = []
    cleaned_sources = []
    for source in sources:
        cleaned, _ = clean_source(source)
        cleaned_sources.append(cleaned)
        chunks.extend(chunk_source(cleaned, params))
    known = {c.chunk_id for c in chunks}
    for chunk in chunks:
        missing = [c for c in chunk.cites if c not in known]
        if missing:
            where = " > ".join(chunk.heading_path[-1:]) or chunk.chunk_id
            raise SourceError(f"{chunk.file}: section {where!r} cites unknown chunk(s) {', '.join(missing)}")
    return cleaned_sources, chunks


def catalog(sources_dir: Path, params: ChunkParams | None = None) -> dict[str, Chunk]:
    """chunk_id → chunk, computed from the sources alone (used to validate citations cheaply)."""
    return {c.chunk_id: c for c in load_corpus(sources_dir, params)[1]}

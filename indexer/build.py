"""Building the index: sources → clean → chunk → embed (incrementally) → store.

Vectors are keyed by the sha256 of the exact text embedded, so a rebuild re-embeds
only text that changed: an unchanged corpus re-embeds nothing. Sources are all parsed
and validated before any write, so a malformed file leaves the old index in place.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import faiss
import numpy as np
from pydantic import BaseModel

from common.errors import IndexMissingError, IndexStoreError
from indexer.ann import build_ann, choose_index_type
from indexer.chunking import ChunkParams
from indexer.corpus import catalog, load_corpus
from indexer.embedder import MODEL_PACKAGE, Embedder
from indexer.onnx_export import export_query_encoder
from indexer.sources import SOURCE_SUFFIXES
from indexer.store import (
    FORMAT_VERSION,
    REBUILD_HINT,
    Manifest,
    ModelInfo,
    SourceEntry,
    StoredChunk,
    current_generation,
    index_lock,
    load_store,
    read_manifest,
    write_generation,
)

__all__ = ["BuildReport", "build_index", "catalog", "load_corpus", "staleness", "text_sha"]


class BuildReport(BaseModel):
    sources: int
    chunks: int
    sentences: int
    embedded: int
    reused: int
    seconds: float
    index_dir: str
    index_type: str
    changed: bool

    def summary(self) -> str:
        return (
            f"{self.sources} sources, {self.chunks} chunks, {self.sentences} sentences; "
            f"embedded {self.embedded}, reused {self.reused}; {self.index_type} index; "
            f"{self.seconds:.1f}s → {self.index_dir}"
        )


def text_sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _source_hashes(sources_dir: Path) -> dict[str, str]:
    out = {}
    for p in sorted(sources_dir.iterdir()):
        if p.is_file() and p.suffix.lower() in SOURCE_SUFFIXES:
            out[p.name] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def staleness(index_dir: Path, sources_dir: Path, params: ChunkParams | None = None) -> str | None:
    """Why the index needs (re)building, or None when it is fresh. Needs no model."""
    params = params or ChunkParams()
    try:
        gen = current_generation(index_dir)
        if gen is None:
            return "no index yet"
        manifest = read_manifest(gen)
    except IndexStoreError as exc:
        return exc.message
    if manifest.chunker != params:
        return "chunking parameters changed"
    if manifest.model.package_version != _package_version():
        return "embedding model package changed"
    if manifest.encoder is None:
        return "the ONNX query encoder is not exported yet"
    stored = {s.file: s.sha256 for s in manifest.sources}
    current = _source_hashes(sources_dir) if sources_dir.is_dir() else {}
    if stored != current:
        changed = sorted(set(stored.items()) ^ set(current.items()))
        names = sorted({name for name, _ in changed})
        return "sources changed: " + ", ".join(names)
    return None


def _package_version() -> str:
    from importlib import metadata

    try:
        return metadata.version(MODEL_PACKAGE)
    except metadata.PackageNotFoundError:
        return "unknown"


def _previous_vectors(index_dir: Path, model_id: str) -> dict[str, np.ndarray]:
    """text sha → vector from the live generation, if it is readable and from this model."""
    try:
        store = load_store(index_dir)
    except IndexStoreError:
        return {}
    if store.manifest.model.id != model_id or store.manifest.model.package_version != _package_version():
        return {}
    known: dict[str, np.ndarray] = {}
    for chunk in store.chunks:
        known[chunk.embed_sha] = store.chunk_vectors[chunk.row]
        for k, sha in enumerate(chunk.sentence_shas):
            known[sha] = store.sentence_vectors[chunk.sentence_start + k]
        if chunk.heading_row >= 0:
            known[text_sha(chunk.heading_path[-1])] = store.heading_vectors[chunk.heading_row]
    return known


def build_index(
    sources_dir: Path,
    index_dir: Path,
    embedder: Embedder,
    *,
    params: ChunkParams | None = None,
    rebuild: bool = False,
    progress: bool | None = None,
    index_type: str | None = None,
    encoder_cache: Path | None = None,
) -> BuildReport:
    """Build or incrementally update the index; returns counts for the summary line.

    ``encoder_cache`` is where the ONNX query encoder is exported (default: the per-user model cache).
    """
    params = params or ChunkParams()
    started = time.perf_counter()
    sources, chunks = load_corpus(sources_dir, params)  # validates everything before any write
    embed_texts = [c.embed_text for c in chunks]
    sentence_texts = [s for c in chunks for s in c.sentences]
    # Section headings say what the notes cover; their vectors back abstention.
    headings = list(dict.fromkeys(c.heading_path[-1] for c in chunks if c.heading_path))
    with index_lock(index_dir):
        if not rebuild and staleness(index_dir, sources_dir, params) is None:
            # Nothing changed: answer from the manifest without loading the model.
            generation = current_generation(index_dir)
            if generation is None:  # staleness() saw a fresh index, so CURRENT exists
                raise IndexMissingError(f"{index_dir}: no index generation", hint=REBUILD_HINT)
            manifest = read_manifest(generation)
            return BuildReport(
                sources=len(sources),
                chunks=len(chunks),
                sentences=len(sentence_texts),
                embedded=0,
                reused=len(set(embed_texts + sentence_texts + headings)),
                seconds=time.perf_counter() - started,
                index_dir=str(index_dir),
                index_type=manifest.index_type,
                changed=False,
            )
        known = {} if rebuild else _previous_vectors(index_dir, embedder.model_id)
        wanted = [text_sha(t) for t in embed_texts + sentence_texts + headings]
        todo: dict[str, str] = {}
        for sha, text in zip(wanted, embed_texts + sentence_texts + headings):
            if sha not in known and sha not in todo:
                todo[sha] = text
        fresh = embedder.encode(list(todo.values()), progress=progress) if todo else None
        vectors = dict(known)
        if fresh is not None:
            vectors.update(zip(todo.keys(), fresh))
        dim = embedder.dim
        n_chunks = len(chunks)
        chunk_vecs = np.zeros((n_chunks, dim), dtype=np.float32)
        sent_vecs = np.zeros((len(sentence_texts), dim), dtype=np.float32)
        head_vecs = np.zeros((len(headings), dim), dtype=np.float32)
        head_row = {h: i for i, h in enumerate(headings)}
        for i, h in enumerate(headings):
            head_vecs[i] = vectors[text_sha(h)]
        stored: list[StoredChunk] = []
        cursor = 0
        for row, chunk in enumerate(chunks):
            esha = wanted[row]
            chunk_vecs[row] = vectors[esha]
            shas = [text_sha(s) for s in chunk.sentences]
            for k, sha in enumerate(shas):
                sent_vecs[cursor + k] = vectors[sha]
            stored.append(
                StoredChunk(
                    **chunk.model_dump(),
                    row=row,
                    sentence_start=cursor,
                    embed_sha=esha,
                    sentence_shas=shas,
                    heading_row=head_row[chunk.heading_path[-1]] if chunk.heading_path else -1,
                )
            )
            cursor += len(shas)
        kind = index_type or choose_index_type(n_chunks)
        index = build_ann(chunk_vecs, kind)
        reused = len(set(wanted)) - len(todo)
        per_source: dict[str, int] = {}
        for c in chunks:
            per_source[c.source_id] = per_source.get(c.source_id, 0) + 1
        hashes = _source_hashes(sources_dir)
        manifest = Manifest(
            format_version=FORMAT_VERSION,
            created_at=time.time(),
            model=ModelInfo(id=embedder.model_id, package=MODEL_PACKAGE, package_version=_package_version(), dim=dim),
            chunker=params,
            sources=[
                SourceEntry(
                    id=s.id, file=s.file, sha256=hashes[s.file], title=s.title, url=s.url, type=s.type,
                    chunks=per_source.get(s.id, 0),
                )
                for s in sources
            ],
            faiss_version=faiss.__version__,
            index_type=kind,
            n_chunks=n_chunks,
            n_sentences=len(sentence_texts),
            n_headings=len(headings),
            probe=[float(x) for x in embedder.probe()],
            encoder=export_query_encoder(embedder, encoder_cache),
        )
        write_generation(index_dir, manifest, stored, chunk_vecs, sent_vecs, head_vecs, index)
    return BuildReport(
        sources=len(sources),
        chunks=n_chunks,
        sentences=len(sentence_texts),
        embedded=len(todo),
        reused=reused,
        seconds=time.perf_counter() - started,
        index_dir=str(index_dir),
        index_type=kind,
        changed=True,
    )

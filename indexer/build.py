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

from common.errors import IndexStoreError
from indexer.ann import build_ann, choose_index_type
from indexer.chunking import Chunk, ChunkParams
from indexer.corpus import catalog, load_corpus
from indexer.embedder import MODEL_PACKAGE, Embedder
from indexer.forms import StoredSentenceForms, forms_sha256, read_forms
from indexer.ondisk import (
    FORMAT_VERSION,
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
from indexer.onnx_export import export_query_encoder
from indexer.sources import SOURCE_SUFFIXES, Source

__all__ = ["BuildReport", "build_index", "catalog", "load_corpus", "recorded_sources_dir", "staleness", "text_sha"]


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
    """file name -> sha256 of every source file; used only when the sources are not parsed anyway."""
    out = {}
    for p in sorted(sources_dir.iterdir()):
        if p.is_file() and p.suffix.lower() in SOURCE_SUFFIXES:
            out[p.name] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def recorded_sources_dir(index_dir: Path) -> Path | None:
    """The sources dir the live index was built from, or None when there is no readable index."""
    try:
        gen = current_generation(index_dir)
        if gen is None:
            return None
        recorded = read_manifest(gen).sources_dir
    except IndexStoreError:
        return None
    return Path(recorded) if recorded else None


def _why_stale(
    manifest: Manifest, sources_dir: Path, current: dict[str, str], params: ChunkParams, forms_sha: str
) -> str | None:
    """Why an index with this manifest does not match these sources (hashed as ``current``)."""
    if manifest.chunker != params:
        return "chunking parameters changed"
    if manifest.model.package_version != _package_version():
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
    if manifest.forms_sha256 != forms_sha:
        return "question forms changed"
    return None


def _live_manifest(index_dir: Path) -> Manifest | str:
    """The live manifest, or why there is none usable (a reason to build)."""
    try:
        gen = current_generation(index_dir)
        if gen is None:
            return "no index yet"
        return read_manifest(gen)
    except IndexStoreError as exc:
        return exc.message


def staleness(index_dir: Path, sources_dir: Path | None = None, params: ChunkParams | None = None) -> str | None:
    """Why the index needs (re)building, or None when it is fresh. Needs no model.

    ``sources_dir=None`` judges the index against the dir it was built from. When that
    dir is gone the index is used as built (there is nothing to rebuild it from).
    """
    manifest = _live_manifest(index_dir)
    if isinstance(manifest, str):
        return manifest
    if sources_dir is None:
        if not manifest.sources_dir or not Path(manifest.sources_dir).is_dir():
            return None
        sources_dir = Path(manifest.sources_dir)
    current = _source_hashes(sources_dir) if sources_dir.is_dir() else {}
    forms_sha = forms_sha256(sources_dir) if sources_dir.is_dir() else ""
    return _why_stale(manifest, sources_dir, current, params or ChunkParams(), forms_sha)


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
    for entry in store.forms:
        for k, form in enumerate(entry.forms):
            known[text_sha(form)] = store.form_vectors[entry.row + k]
    return known


class _Texts:
    """Everything a build embeds, in index order, with the sha each vector is keyed by."""

    def __init__(self, chunks: list[Chunk], forms: list[StoredSentenceForms] | None = None) -> None:
        self.chunks = chunks
        self.form_entries = forms or []
        self.forms = [f for entry in self.form_entries for f in entry.forms]
        self.embed = [c.embed_text for c in chunks]
        self.sentences = [s for c in chunks for s in c.sentences]
        # Section headings say what the notes cover; their vectors back abstention.
        self.headings = list(dict.fromkeys(c.heading_path[-1] for c in chunks if c.heading_path))
        self.all = self.embed + self.sentences + self.headings + self.forms
        self.shas = [text_sha(t) for t in self.all]


def _embed_missing(texts: _Texts, known: dict[str, np.ndarray], embedder: Embedder, progress: bool | None) -> tuple[dict[str, np.ndarray], int]:
    """text sha -> vector for every text, embedding only those not already known."""
    todo: dict[str, str] = {}
    for sha, text in zip(texts.shas, texts.all):
        if sha not in known and sha not in todo:
            todo[sha] = text
    vectors = dict(known)
    if todo:
        vectors.update(zip(todo.keys(), embedder.encode(list(todo.values()), progress=progress)))
    return vectors, len(todo)


def _form_entries(sources_dir: Path) -> list[StoredSentenceForms]:
    """Every sentence's forms, in file order, with the row its first form takes."""
    out: list[StoredSentenceForms] = []
    row = 0
    for entries in read_forms(sources_dir).values():
        for e in entries:
            out.append(StoredSentenceForms(sentence=e.text, lead=e.lead, forms=list(e.forms), row=row))
            row += len(e.forms)
    return out


def _form_matrix(texts: _Texts, vectors: dict[str, np.ndarray], dim: int) -> np.ndarray:
    out = np.zeros((len(texts.forms), dim), dtype=np.float32)
    for i, form in enumerate(texts.forms):
        out[i] = vectors[text_sha(form)]
    return out


def _assemble(texts: _Texts, vectors: dict[str, np.ndarray], dim: int) -> tuple[list[StoredChunk], np.ndarray, np.ndarray, np.ndarray]:
    """The stored chunks and the three vector arrays, rows in chunk order."""
    chunk_vecs = np.zeros((len(texts.chunks), dim), dtype=np.float32)
    sent_vecs = np.zeros((len(texts.sentences), dim), dtype=np.float32)
    head_vecs = np.zeros((len(texts.headings), dim), dtype=np.float32)
    head_row = {h: i for i, h in enumerate(texts.headings)}
    for i, h in enumerate(texts.headings):
        head_vecs[i] = vectors[text_sha(h)]
    stored: list[StoredChunk] = []
    cursor = 0
    for row, chunk in enumerate(texts.chunks):
        esha = texts.shas[row]
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
    return stored, chunk_vecs, sent_vecs, head_vecs


def _manifest(
    sources: list[Source], sources_dir: Path, texts: _Texts, embedder: Embedder, params: ChunkParams, kind: str,
    encoder_cache: Path | None,
    forms_sha: str = "",
) -> Manifest:
    per_source: dict[str, int] = {}
    for c in texts.chunks:
        per_source[c.source_id] = per_source.get(c.source_id, 0) + 1
    return Manifest(
        format_version=FORMAT_VERSION,
        created_at=time.time(),
        model=ModelInfo(id=embedder.model_id, package=MODEL_PACKAGE, package_version=_package_version(), dim=embedder.dim),
        chunker=params,
        sources=[
            SourceEntry(
                id=s.id, file=s.file, sha256=s.sha256, title=s.title, url=s.url, type=s.type, chunks=per_source.get(s.id, 0)
            )
            for s in sources
        ],
        sources_dir=str(sources_dir.resolve()),
        faiss_version=faiss.__version__,
        index_type=kind,
        n_chunks=len(texts.chunks),
        n_sentences=len(texts.sentences),
        n_headings=len(texts.headings),
        probe=[float(x) for x in embedder.probe()],
        encoder=export_query_encoder(embedder, encoder_cache),
        forms_sha256=forms_sha,
        n_forms=len(texts.forms),
    )


def _fresh_index_type(
    index_dir: Path, sources: list[Source], sources_dir: Path, params: ChunkParams, forms_sha: str
) -> str | None:
    """The live index's type when it already matches these sources, else None. Call under the lock."""
    manifest = _live_manifest(index_dir)
    if isinstance(manifest, str):
        return None
    current = {s.file: s.sha256 for s in sources}  # hashed while parsing: the files are not read again
    return manifest.index_type if _why_stale(manifest, sources_dir, current, params, forms_sha) is None else None


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
    forms_sha = forms_sha256(sources_dir)
    texts = _Texts(chunks, _form_entries(sources_dir))
    with index_lock(index_dir):
        fresh_kind = None if rebuild else _fresh_index_type(index_dir, sources, sources_dir, params, forms_sha)
        if fresh_kind is not None:  # nothing changed: answered without loading the model
            embedded, reused, kind = 0, len(set(texts.all)), fresh_kind
        else:
            known = {} if rebuild else _previous_vectors(index_dir, embedder.model_id)
            vectors, embedded = _embed_missing(texts, known, embedder, progress)
            reused = len(set(texts.shas)) - embedded
            stored, chunk_vecs, sent_vecs, head_vecs = _assemble(texts, vectors, embedder.dim)
            kind = index_type or choose_index_type(len(chunks))
            manifest = _manifest(sources, sources_dir, texts, embedder, params, kind, encoder_cache, forms_sha)
            write_generation(
                index_dir, manifest, stored, chunk_vecs, sent_vecs, head_vecs, build_ann(chunk_vecs, kind),
                forms=texts.form_entries, form_vectors=_form_matrix(texts, vectors, embedder.dim),
            )
    return BuildReport(
        sources=len(sources),
        chunks=len(chunks),
        sentences=len(texts.sentences),
        embedded=embedded,
        reused=reused,
        seconds=time.perf_counter() - started,
        index_dir=str(index_dir),
        index_type=kind,
        changed=fresh_kind is None,
    )

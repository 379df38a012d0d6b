"""Building the index: sources → clean → chunk → embed (incrementally) → store.

Vectors are keyed by the sha256 of the exact text embedded, so a rebuild re-embeds
only text that changed: an unchanged corpus re-embeds nothing. Sources are all parsed
and validated before any write, so a malformed file leaves the old index in place.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from pathlib import Path

import faiss
import numpy as np
from pydantic import BaseModel

from common.errors import IndexStoreError
from common.locations import default_model_cache_dir
from indexer.ann import build_ann, choose_index_type
from indexer.chunking import Chunk, ChunkParams
from indexer.corpus import catalog, load_corpus
from indexer.embedder import MODEL_PACKAGE, Embedder, model_package_version
from indexer.forms import StoredSentenceForms, forms_sha256, read_forms
from indexer.freshness import IndexStatus, why_stale
from indexer.manifest import FORMAT_VERSION, Manifest, ModelInfo, SourceEntry
from indexer.ondisk import StoredChunk, index_lock, load_store, write_generation
from indexer.onnx_export import export_query_encoder
from indexer.query_texts import query_texts_sha256
from indexer.sources import Source

__all__ = ["BuildReport", "build_index", "catalog", "load_corpus", "text_sha"]


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


def _previous_vectors(status: IndexStatus, model_id: str) -> dict[str, np.ndarray]:
    """text sha → vector from the live generation, if it is readable and from this model."""
    manifest = status.manifest
    if manifest is None or manifest.model.id != model_id or manifest.model.package_version != model_package_version():
        return {}
    try:
        store = load_store(status.index_dir, generation=status.generation, manifest=manifest)
    except IndexStoreError:
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
    for row, text in enumerate(store.query_texts):
        known[text_sha(text)] = store.query_text_vectors[row]
    return known


class _Texts:
    """Everything a build embeds, in index order, with the sha each vector is keyed by."""

    def __init__(self, chunks: list[Chunk], forms: list[StoredSentenceForms] | None = None, query: Sequence[str] = ()) -> None:
        self.chunks = chunks
        self.query = list(query)
        self.form_entries = forms or []
        self.forms = [f for entry in self.form_entries for f in entry.forms]
        self.embed = [c.embed_text for c in chunks]
        self.sentences = [s for c in chunks for s in c.sentences]
        # Section headings say what the notes cover; their vectors back abstention.
        self.headings = list(dict.fromkeys(c.heading_path[-1] for c in chunks if c.heading_path))
        self.all = self.embed + self.sentences + self.headings + self.forms + self.query
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


def _matrix(rows: list[str], vectors: dict[str, np.ndarray], dim: int) -> np.ndarray:
    """The vectors of these texts, row for row."""
    out = np.zeros((len(rows), dim), dtype=np.float32)
    for i, text in enumerate(rows):
        out[i] = vectors[text_sha(text)]
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
    encoder_cache: Path,
    forms_sha: str = "",
) -> Manifest:
    per_source: dict[str, int] = {}
    for c in texts.chunks:
        per_source[c.source_id] = per_source.get(c.source_id, 0) + 1
    return Manifest(
        format_version=FORMAT_VERSION,
        created_at=time.time(),
        model=ModelInfo(id=embedder.model_id, package=MODEL_PACKAGE, package_version=model_package_version(), dim=embedder.dim),
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
        query_texts_sha256=query_texts_sha256(texts.query),
        n_query_texts=len(texts.query),
    )


def _fresh_index_type(
    status: IndexStatus, sources: list[Source], sources_dir: Path, params: ChunkParams, forms_sha: str, query_sha: str
) -> str | None:
    """The live index's type when it already matches these sources, else None."""
    manifest = status.manifest
    if manifest is None:
        return None
    current = {s.file: s.sha256 for s in sources}  # hashed while parsing: the files are not read again
    return manifest.index_type if why_stale(manifest, sources_dir, current, params, forms_sha, query_sha) is None else None


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
    status: IndexStatus | None = None,
    query_texts: Sequence[str] = (),
) -> BuildReport:
    """Build or incrementally update the index; returns counts for the summary line.

    ``encoder_cache`` is where the ONNX query encoder is exported (``HWBOT_MODEL_CACHE_DIR``;
    default: the per-user model cache).
    ``status`` is the caller's reading of the live manifest; under the lock it is re-read only
    when another process swapped in a new generation meanwhile. ``query_texts`` are the
    answering side's fixed texts (:mod:`indexer.query_texts`), embedded into the generation.
    """
    params = params or ChunkParams()
    started = time.perf_counter()
    sources, chunks = load_corpus(sources_dir, params)  # validates everything before any write
    forms_sha = forms_sha256(sources_dir)
    texts = _Texts(chunks, _form_entries(sources_dir), list(dict.fromkeys(query_texts)))
    with index_lock(index_dir):
        live = status.current() if status is not None and status.index_dir == index_dir else IndexStatus.read(index_dir)
        fresh_kind = None if rebuild else _fresh_index_type(live, sources, sources_dir, params, forms_sha, query_texts_sha256(texts.query))
        if fresh_kind is not None:  # nothing changed: answered without loading the model
            embedded, reused, kind = 0, len(set(texts.all)), fresh_kind
        else:
            known = {} if rebuild else _previous_vectors(live, embedder.model_id)
            vectors, embedded = _embed_missing(texts, known, embedder, progress)
            reused = len(set(texts.shas)) - embedded
            stored, chunk_vecs, sent_vecs, head_vecs = _assemble(texts, vectors, embedder.dim)
            kind = index_type or choose_index_type(len(chunks))
            manifest = _manifest(sources, sources_dir, texts, embedder, params, kind, encoder_cache or default_model_cache_dir(), forms_sha)
            write_generation(
                index_dir, manifest, stored, chunk_vecs, sent_vecs, head_vecs, build_ann(chunk_vecs, kind),
                forms=texts.form_entries, form_vectors=_matrix(texts.forms, vectors, embedder.dim),
                query_texts=texts.query, query_text_vectors=_matrix(texts.query, vectors, embedder.dim),
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

"""The on-disk index: format, atomic writes and validated loading.

Layout under the index dir::

    CURRENT                 name of the live generation (replaced atomically)
    .lock                   file lock held by writers
    gen-<time>-<rand>/      one complete, immutable build
        manifest.json       versions, model, params, source hashes, file sizes, probe
        chunks.jsonl        one chunk a line (no pickle anywhere)
        chunk_vectors.npy   (n_chunks, dim) float32
        sentence_vectors.npy (n_sentences, dim) float32, in chunk order
        heading_vectors.npy (n_headings, dim) float32, one per distinct section heading
        index.faiss         the ANN index over chunk vectors

A build writes a new generation in full, then swaps ``CURRENT``: a reader sees the old
index or the new one, never half of each.
"""

from __future__ import annotations

import os
import secrets
import shutil
import time
from pathlib import Path

import faiss
import numpy as np
from filelock import FileLock, Timeout
from pydantic import BaseModel, Field, ValidationError

from common.errors import IndexCorruptError, IndexMissingError, IndexStoreError, ModelMismatchError
from indexer.chunking import Chunk, ChunkParams

__all__ = [
    "FORMAT_VERSION",
    "Manifest",
    "ModelInfo",
    "QueryEncoderInfo",
    "SourceEntry",
    "StoredChunk",
    "Store",
    "load_store",
    "write_generation",
    "index_lock",
    "REBUILD_HINT",
]

FORMAT_VERSION = 2
REBUILD_HINT = "run 'hwbot index --rebuild'"
_FILES = (
    "manifest.json",
    "chunks.jsonl",
    "chunk_vectors.npy",
    "sentence_vectors.npy",
    "heading_vectors.npy",
    "index.faiss",
)


class ModelInfo(BaseModel):
    id: str
    package: str
    package_version: str
    dim: int


class QueryEncoderInfo(BaseModel):
    """The ONNX query encoder exported for this generation (see :mod:`indexer.onnx_export`)."""

    path: str
    size: int
    sha256: str
    exporter: str
    opset: int
    model_package_version: str
    #: the smallest cosine between ONNX and sentence-transformers vectors over the probe texts
    probe_min_cosine: float
    probe_texts: int


class SourceEntry(BaseModel):
    id: str
    file: str
    sha256: str
    title: str
    url: str
    type: str
    chunks: int


class Manifest(BaseModel):
    format_version: int
    created_at: float
    model: ModelInfo
    metric: str = "inner_product"
    normalized: bool = True
    chunker: ChunkParams
    sources: list[SourceEntry]
    faiss_version: str
    index_type: str
    n_chunks: int
    n_sentences: int
    n_headings: int = 0
    files: dict[str, int] = Field(default_factory=dict)
    probe: list[float]
    #: None for an index built before the query path moved to ONNX
    encoder: QueryEncoderInfo | None = None


class StoredChunk(Chunk):
    """A chunk plus where its vectors live in the arrays."""

    row: int
    sentence_start: int
    embed_sha: str
    sentence_shas: list[str]
    #: row of this chunk's section heading in heading_vectors, -1 when it has none
    heading_row: int = -1


class Store(BaseModel):
    """A loaded, validated generation."""

    model_config = {"arbitrary_types_allowed": True}

    path: Path
    manifest: Manifest
    chunks: list[StoredChunk]
    chunk_vectors: np.ndarray
    sentence_vectors: np.ndarray
    heading_vectors: np.ndarray
    index: faiss.Index

    def by_id(self) -> dict[str, StoredChunk]:
        return {c.chunk_id: c for c in self.chunks}

    def check_model(self, model_id: str, dim: int, probe: np.ndarray, *, tolerance: float = 1e-3) -> None:
        """Refuse to query with another model than the one that built the index."""
        m = self.manifest.model
        if m.id != model_id:
            raise ModelMismatchError(f"index was built with model {m.id}, but hwbot uses {model_id}", hint=REBUILD_HINT)
        if m.dim != dim:
            raise ModelMismatchError(f"index has dimension {m.dim}, but the model gives {dim}", hint=REBUILD_HINT)
        stored = np.asarray(self.manifest.probe, dtype=np.float32)
        if stored.shape != probe.shape or float(np.max(np.abs(stored - probe))) > tolerance:
            raise ModelMismatchError(
                "the embedding model's output differs from the one that built the index (probe vector mismatch)",
                hint=REBUILD_HINT,
            )


class _IndexLock:
    """A file lock on the index dir whose failures are one-line :class:`IndexStoreError` s."""

    def __init__(self, index_dir: Path, timeout: float) -> None:
        try:
            index_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise IndexStoreError(
                f"{index_dir}: cannot use as the index directory ({exc.strerror or exc})",
                hint="set HWBOT_INDEX_DIR to a writable directory",
            ) from None
        self._dir = index_dir
        self._timeout = timeout
        self._lock = FileLock(str(index_dir / ".lock"), timeout=timeout)

    def __enter__(self) -> "_IndexLock":
        try:
            self._lock.acquire()
        except Timeout:
            raise IndexStoreError(
                f"{self._dir}: another hwbot process has held the index lock for {self._timeout:.0f}s"
            ) from None
        except OSError as exc:
            raise IndexStoreError(f"{self._dir}: cannot lock the index ({exc.strerror or exc})") from None
        return self

    def __exit__(self, *exc: object) -> None:
        self._lock.release()


def index_lock(index_dir: Path, timeout: float = 600) -> _IndexLock:
    """Held by every writer; opening it reports an unusable index dir in one line."""
    return _IndexLock(index_dir, timeout)


def current_generation(index_dir: Path) -> Path | None:
    pointer = index_dir / "CURRENT"
    try:
        name = pointer.read_text(encoding="utf-8").strip()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, UnicodeDecodeError):
        raise IndexCorruptError(f"{pointer} is unreadable", hint=REBUILD_HINT) from None
    if not name or "/" in name or name.startswith("."):
        raise IndexCorruptError(f"{pointer} does not name a generation", hint=REBUILD_HINT)
    return index_dir / name


def read_manifest(gen: Path) -> Manifest:
    path = gen / "manifest.json"
    try:
        manifest = Manifest.model_validate_json(path.read_bytes())
    except FileNotFoundError:
        raise IndexCorruptError(f"{path} is missing", hint=REBUILD_HINT) from None
    except (ValidationError, ValueError, UnicodeDecodeError):
        raise IndexCorruptError(f"{path} is corrupt", hint=REBUILD_HINT) from None
    if manifest.format_version != FORMAT_VERSION:
        raise IndexCorruptError(
            f"index format {manifest.format_version} is not the supported format {FORMAT_VERSION}", hint=REBUILD_HINT
        )
    return manifest


def _load_array(path: Path, rows: int, dim: int) -> np.ndarray:
    try:
        arr = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise IndexCorruptError(f"{path} is missing", hint=REBUILD_HINT) from None
    except (ValueError, OSError, EOFError):
        raise IndexCorruptError(f"{path} is corrupt", hint=REBUILD_HINT) from None
    if arr.dtype != np.float32 or arr.shape != (rows, dim):
        raise IndexCorruptError(f"{path} has shape {arr.shape}, expected ({rows}, {dim})", hint=REBUILD_HINT)
    return arr


def load_store(index_dir: Path) -> Store:
    """Load the live generation, or raise a one-line error saying how to rebuild."""
    gen = current_generation(index_dir)
    if gen is None:
        raise IndexMissingError(f"no index in {index_dir}", hint="run 'hwbot index'")
    if not gen.is_dir():
        raise IndexCorruptError(f"{gen} is missing", hint=REBUILD_HINT)
    manifest = read_manifest(gen)
    for name, size in manifest.files.items():
        f = gen / name
        if not f.exists():
            raise IndexCorruptError(f"{f} is missing", hint=REBUILD_HINT)
        if f.stat().st_size != size:
            raise IndexCorruptError(f"{f} is truncated or altered (size differs)", hint=REBUILD_HINT)
    chunks: list[StoredChunk] = []
    try:
        with open(gen / "chunks.jsonl", encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    chunks.append(StoredChunk.model_validate_json(line))
    except FileNotFoundError:
        raise IndexCorruptError(f"{gen / 'chunks.jsonl'} is missing", hint=REBUILD_HINT) from None
    except (ValidationError, ValueError, UnicodeDecodeError):
        raise IndexCorruptError(f"{gen / 'chunks.jsonl'} is corrupt", hint=REBUILD_HINT) from None
    dim = manifest.model.dim
    if len(chunks) != manifest.n_chunks:
        raise IndexCorruptError(f"{gen / 'chunks.jsonl'} has {len(chunks)} chunks, manifest says {manifest.n_chunks}", hint=REBUILD_HINT)
    chunk_vectors = _load_array(gen / "chunk_vectors.npy", manifest.n_chunks, dim)
    sentence_vectors = _load_array(gen / "sentence_vectors.npy", manifest.n_sentences, dim)
    heading_vectors = _load_array(gen / "heading_vectors.npy", manifest.n_headings, dim)
    try:
        index = faiss.read_index(str(gen / "index.faiss"))
    except RuntimeError:
        raise IndexCorruptError(f"{gen / 'index.faiss'} is corrupt", hint=REBUILD_HINT) from None
    if index.ntotal != manifest.n_chunks or index.d != dim:
        raise IndexCorruptError(f"{gen / 'index.faiss'} does not match the manifest", hint=REBUILD_HINT)
    return Store(
        path=gen,
        manifest=manifest,
        chunks=chunks,
        chunk_vectors=chunk_vectors,
        sentence_vectors=sentence_vectors,
        heading_vectors=heading_vectors,
        index=index,
    )


def write_generation(
    index_dir: Path,
    manifest: Manifest,
    chunks: list[StoredChunk],
    chunk_vectors: np.ndarray,
    sentence_vectors: np.ndarray,
    heading_vectors: np.ndarray,
    index: faiss.Index,
    *,
    keep: int = 1,
) -> Path:
    """Write a complete generation, then make it live. Caller holds :func:`index_lock`."""
    index_dir.mkdir(parents=True, exist_ok=True)
    name = f"gen-{int(time.time() * 1000)}-{secrets.token_hex(3)}"
    tmp = index_dir / f".tmp-{name}"
    tmp.mkdir()
    try:
        with open(tmp / "chunks.jsonl", "w", encoding="utf-8") as fh:
            for chunk in chunks:
                fh.write(chunk.model_dump_json() + "\n")
        np.save(tmp / "chunk_vectors.npy", np.ascontiguousarray(chunk_vectors, dtype=np.float32), allow_pickle=False)
        np.save(tmp / "sentence_vectors.npy", np.ascontiguousarray(sentence_vectors, dtype=np.float32), allow_pickle=False)
        np.save(tmp / "heading_vectors.npy", np.ascontiguousarray(heading_vectors, dtype=np.float32), allow_pickle=False)
        faiss.write_index(index, str(tmp / "index.faiss"))
        files = {f: (tmp / f).stat().st_size for f in _FILES if f != "manifest.json"}
        manifest = manifest.model_copy(update={"files": files})
        (tmp / "manifest.json").write_text(manifest.model_dump_json(indent=2), encoding="utf-8")
        for f in _FILES:
            with open(tmp / f, "rb") as fh:
                os.fsync(fh.fileno())
        gen = index_dir / name
        os.rename(tmp, gen)
        pointer_tmp = index_dir / f".CURRENT-{name}"
        pointer_tmp.write_text(name + "\n", encoding="utf-8")
        os.replace(pointer_tmp, index_dir / "CURRENT")
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _prune(index_dir, live=name, keep=keep)
    return gen


def _prune(index_dir: Path, *, live: str, keep: int) -> None:
    """Drop old generations and leftovers of interrupted builds, keeping the newest ``keep``."""
    gens = sorted((p for p in index_dir.glob("gen-*") if p.name != live), key=lambda p: p.name, reverse=True)
    for old in gens[keep:]:
        shutil.rmtree(old, ignore_errors=True)
    for junk in list(index_dir.glob(".tmp-gen-*")) + list(index_dir.glob(".CURRENT-*")):
        if junk.is_dir():
            shutil.rmtree(junk, ignore_errors=True)
        else:
            junk.unlink(missing_ok=True)


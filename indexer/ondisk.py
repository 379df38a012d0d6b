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
        forms.jsonl         question forms per note sentence (optional, see indexer.forms)
        form_vectors.npy    (n_forms, dim) float32, the forms in forms.jsonl order
        query_texts.jsonl   the query side's fixed texts (optional, see indexer.query_texts)
        query_text_vectors.npy (n_query_texts, dim) float32, in that order

A build writes a new generation in full, then swaps ``CURRENT``: a reader sees the old
index or the new one, never half of each.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import secrets
import shutil
import struct
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel, Field, PrivateAttr, ValidationError

from common.errors import IndexCorruptError, IndexMissingError, ModelMismatchError

if TYPE_CHECKING:  # pragma: no cover
    import faiss
from indexer.chunking import Chunk
from indexer.forms import StoredSentenceForms
from indexer.locking import index_lock
from indexer.manifest import REBUILD_HINT, Manifest, current_generation, read_manifest
from indexer.query_texts import QUERY_TEXT_FILES

__all__ = [
    "StoredChunk",
    "Store",
    "load_store",
    "write_generation",
    "index_lock",
]

#: numpy headers are padded to 64 bytes and far smaller than this in practice.
_NPY_HEADER_MAX = 4096
_FILES = (
    "manifest.json",
    "chunks.jsonl",
    "chunk_vectors.npy",
    "sentence_vectors.npy",
    "heading_vectors.npy",
    "index.faiss",
)
#: Written by builds that had question forms; an older generation simply has none.
_FORM_FILES = ("forms.jsonl", "form_vectors.npy")


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
    forms: list[StoredSentenceForms] = []
    form_vectors: np.ndarray = Field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    #: the query side's fixed texts and their vectors (indexer.query_texts), row for row
    query_texts: list[str] = []
    query_text_vectors: np.ndarray = Field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))

    _index: Any = PrivateAttr(default=None)

    @property
    def index(self) -> "faiss.Index":
        """The FAISS index. An exact (flat) index is searched as one matrix product over
        ``chunk_vectors`` and never needs it, and importing FAISS was a tenth of a cold ``hwbot
        ask``, so a flat one is read on first use (its small file checked again then); its size,
        header and sha256 are checked at load all the same. An approximate index is read at load."""
        if self._index is None:
            self._index = _read_faiss(self.path / "index.faiss", self.manifest)
        return self._index

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


def _recorded(path: Path, manifest: Manifest) -> tuple[int, str]:
    """The size and sha256 the manifest recorded for a file, checked against its size on disk."""
    size, sha = manifest.files.get(path.name), manifest.sha256.get(path.name)
    if size is None or sha is None:
        raise IndexCorruptError(f"{path.parent / 'manifest.json'} does not record {path.name}", hint=REBUILD_HINT)
    try:
        actual = path.stat().st_size
    except FileNotFoundError:
        raise IndexCorruptError(f"{path} is missing", hint=REBUILD_HINT) from None
    except OSError as exc:
        raise IndexCorruptError(f"{path} is unreadable ({exc.strerror or exc})", hint=REBUILD_HINT) from None
    if actual != size:
        raise IndexCorruptError(f"{path} is truncated or altered (size differs)", hint=REBUILD_HINT)
    return size, sha


def _altered(path: Path) -> IndexCorruptError:
    return IndexCorruptError(f"{path} was altered (sha256 differs from the manifest)", hint=REBUILD_HINT)


def _verified_bytes(path: Path, manifest: Manifest) -> bytearray:
    """The whole file, read once, after its size and sha256 match what the manifest recorded.

    The size is checked before reading, so a swapped-in huge file is never read; the hash
    catches same-size tampering (a chunk's text swapped, vector bytes flipped).
    """
    size, sha = _recorded(path, manifest)
    buf = bytearray(size)
    try:
        with open(path, "rb") as fh:
            got = fh.readinto(buf)
    except OSError as exc:
        raise IndexCorruptError(f"{path} is unreadable ({exc.strerror or exc})", hint=REBUILD_HINT) from None
    if got != size or hashlib.sha256(buf).hexdigest() != sha:
        raise _altered(path)
    return buf


def _parse_array(path: Path, buf: bytearray, rows: int, dim: int) -> np.ndarray:
    """A float32 (rows, dim) array viewed in place over the verified bytes (no second copy)."""
    try:
        head = io.BytesIO(bytes(buf[:_NPY_HEADER_MAX]))
        version = np.lib.format.read_magic(head)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(head)
        else:
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(head)
    except (ValueError, OSError, EOFError, SyntaxError):
        raise IndexCorruptError(f"{path} is corrupt", hint=REBUILD_HINT) from None
    if dtype != np.dtype("<f4") or fortran or tuple(shape) != (rows, dim):
        raise IndexCorruptError(f"{path} has shape {tuple(shape)}, expected ({rows}, {dim})", hint=REBUILD_HINT)
    offset = head.tell()
    if len(buf) != offset + rows * dim * 4:
        raise IndexCorruptError(f"{path} has {len(buf) - offset} data bytes, expected {rows * dim * 4}", hint=REBUILD_HINT)
    return np.frombuffer(buf, dtype=np.float32, count=rows * dim, offset=offset).reshape(rows, dim)


def _parse_chunks(path: Path, buf: bytearray, expected: int) -> list[StoredChunk]:
    try:
        chunks = [StoredChunk.model_validate_json(line) for line in buf.splitlines() if line.strip()]
    except (ValidationError, ValueError, UnicodeDecodeError):
        raise IndexCorruptError(f"{path} is corrupt", hint=REBUILD_HINT) from None
    if len(chunks) != expected:
        raise IndexCorruptError(f"{path} has {len(chunks)} chunks, manifest says {expected}", hint=REBUILD_HINT)
    return chunks


def _check_faiss_file(path: Path, manifest: Manifest) -> None:
    """Check the header's dimension and count, and the file's size, before FAISS sees a byte.

    FAISS trusts its header: a corrupted count makes it allocate (and spend tens of
    seconds on) gigabytes before failing. Every index type hwbot writes starts with a
    4-byte tag, then the dimension (int32) and the vector count (int64), and stores the
    vectors themselves, so the file is at least ``ntotal * dim * 4`` bytes.
    """
    n, dim = manifest.n_chunks, manifest.model.dim
    size, sha = _recorded(path, manifest)
    try:
        with open(path, "rb") as fh:
            head = fh.read(16)
    except OSError as exc:
        raise IndexCorruptError(f"{path} is unreadable ({exc.strerror or exc})", hint=REBUILD_HINT) from None
    if len(head) < 16 or size < 16 + n * dim * 4:
        raise IndexCorruptError(f"{path} is too small for {n} vectors of dimension {dim}", hint=REBUILD_HINT)
    d, ntotal = struct.unpack("<iq", head[4:16])
    if (d, ntotal) != (dim, n):
        raise IndexCorruptError(f"{path} header says {ntotal} vectors of dimension {d}, manifest {n} of {dim}", hint=REBUILD_HINT)
    # FAISS reads the file itself, so it is hashed in steps (the page cache serves the re-read).
    if _file_sha256(path) != sha:
        raise _altered(path)


def _read_faiss(path: Path, manifest: Manifest, *, checked: bool = False) -> "faiss.Index":
    """The index, from a file :func:`_check_faiss_file` passes (``checked``: it just did)."""
    import faiss

    if not checked:
        _check_faiss_file(path, manifest)
    n, dim = manifest.n_chunks, manifest.model.dim
    try:
        index = faiss.read_index(str(path))
    except RuntimeError:
        raise IndexCorruptError(f"{path} is corrupt", hint=REBUILD_HINT) from None
    if index.ntotal != n or index.d != dim:
        raise IndexCorruptError(f"{path} does not match the manifest", hint=REBUILD_HINT)
    return index


def load_store(index_dir: Path, *, generation: Path | None = None, manifest: Manifest | None = None) -> Store:
    """Load the live generation, or raise a one-line error saying how to rebuild.

    ``generation`` and its ``manifest``, when the caller has read them already
    (:class:`indexer.freshness.IndexStatus`), are not read again. Every file's size is
    checked before it is read and its sha256 once while it is read; the parsed shapes
    must then agree with the manifest.
    """
    gen = generation if generation is not None and manifest is not None else current_generation(index_dir)
    if gen is None:
        raise IndexMissingError(f"no index in {index_dir}", hint="run 'hwbot index'")
    if not gen.is_dir():
        raise IndexCorruptError(f"{gen} is missing", hint=REBUILD_HINT)
    if manifest is None or gen != generation:
        manifest = read_manifest(gen)
    dim = manifest.model.dim
    chunks = _parse_chunks(gen / "chunks.jsonl", _verified_bytes(gen / "chunks.jsonl", manifest), manifest.n_chunks)
    arrays = {
        name: _parse_array(gen / name, _verified_bytes(gen / name, manifest), rows, dim)
        for name, rows in (
            ("chunk_vectors.npy", manifest.n_chunks),
            ("sentence_vectors.npy", manifest.n_sentences),
            ("heading_vectors.npy", manifest.n_headings),
        )
    }
    forms: list[StoredSentenceForms] = []
    form_vectors = np.zeros((0, dim), dtype=np.float32)
    if "forms.jsonl" in manifest.files:
        try:
            buf = _verified_bytes(gen / "forms.jsonl", manifest)
            forms = [StoredSentenceForms.model_validate_json(line) for line in buf.splitlines() if line.strip()]
        except (ValidationError, ValueError, UnicodeDecodeError):
            raise IndexCorruptError(f"{gen / 'forms.jsonl'} is corrupt", hint=REBUILD_HINT) from None
        path = gen / "form_vectors.npy"
        form_vectors = _parse_array(path, _verified_bytes(path, manifest), manifest.n_forms, dim)
    query_texts: list[str] = []
    query_text_vectors = np.zeros((0, dim), dtype=np.float32)
    if QUERY_TEXT_FILES[0] in manifest.files:
        path = gen / QUERY_TEXT_FILES[0]
        try:
            query_texts = [json.loads(line) for line in _verified_bytes(path, manifest).splitlines() if line.strip()]
        except (ValueError, UnicodeDecodeError):
            raise IndexCorruptError(f"{path} is corrupt", hint=REBUILD_HINT) from None
        if len(query_texts) != manifest.n_query_texts or not all(isinstance(t, str) for t in query_texts):
            raise IndexCorruptError(f"{path} does not hold {manifest.n_query_texts} texts", hint=REBUILD_HINT)
        path = gen / QUERY_TEXT_FILES[1]
        query_text_vectors = _parse_array(path, _verified_bytes(path, manifest), manifest.n_query_texts, dim)
    _check_faiss_file(gen / "index.faiss", manifest)
    store = Store(
        path=gen,
        manifest=manifest,
        chunks=chunks,
        chunk_vectors=arrays["chunk_vectors.npy"],
        sentence_vectors=arrays["sentence_vectors.npy"],
        heading_vectors=arrays["heading_vectors.npy"],
        forms=forms,
        form_vectors=form_vectors,
        query_texts=query_texts,
        query_text_vectors=query_text_vectors,
    )
    if manifest.index_type != "flat":  # searched through FAISS from the first query: read now, hashed once
        store._index = _read_faiss(gen / "index.faiss", manifest, checked=True)
    return store


def write_generation(
    index_dir: Path,
    manifest: Manifest,
    chunks: list[StoredChunk],
    chunk_vectors: np.ndarray,
    sentence_vectors: np.ndarray,
    heading_vectors: np.ndarray,
    index: "faiss.Index",
    *,
    forms: list[StoredSentenceForms] | None = None,
    form_vectors: np.ndarray | None = None,
    query_texts: list[str] | None = None,
    query_text_vectors: np.ndarray | None = None,
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
        import faiss

        faiss.write_index(index, str(tmp / "index.faiss"))
        names: tuple[str, ...] = _FILES
        if forms is not None and form_vectors is not None:
            with open(tmp / "forms.jsonl", "w", encoding="utf-8") as fh:
                fh.writelines(f.model_dump_json() + "\n" for f in forms)
            np.save(tmp / "form_vectors.npy", np.ascontiguousarray(form_vectors, dtype=np.float32), allow_pickle=False)
            names = names + _FORM_FILES
        if query_texts and query_text_vectors is not None:
            with open(tmp / QUERY_TEXT_FILES[0], "w", encoding="utf-8") as fh:
                fh.writelines(json.dumps(t, ensure_ascii=False) + "\n" for t in query_texts)
            np.save(tmp / QUERY_TEXT_FILES[1], np.ascontiguousarray(query_text_vectors, dtype=np.float32), allow_pickle=False)
            names = names + QUERY_TEXT_FILES
        payload = [f for f in names if f != "manifest.json"]
        files = {f: (tmp / f).stat().st_size for f in payload}
        manifest = manifest.model_copy(update={"files": files, "sha256": {f: _file_sha256(tmp / f) for f in payload}})
        (tmp / "manifest.json").write_text(manifest.model_dump_json(indent=2), encoding="utf-8")
        for f in names:
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


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


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


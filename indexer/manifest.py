"""What a generation says about itself: the manifest, and which generation is live.

Split from :mod:`indexer.ondisk` because the freshness check, the ONNX export and the
answering service need the manifest's shape without the array and FAISS loading that
reads a whole generation: one owner for the record, another for the bytes.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ValidationError

from common.errors import IndexCorruptError
from indexer.chunking import ChunkParams

__all__ = [
    "FORMAT_VERSION",
    "REBUILD_HINT",
    "Manifest",
    "ModelInfo",
    "QueryEncoderInfo",
    "SourceEntry",
    "current_generation",
    "read_manifest",
]

#: 3: the manifest records the sources dir and a sha256 per file.
FORMAT_VERSION = 3
REBUILD_HINT = "run 'hwbot index --rebuild'"


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
    #: file name -> size in bytes, checked before a file is read
    files: dict[str, int] = {}
    #: file name -> sha256, checked while it is read (catches same-size tampering)
    sha256: dict[str, str] = {}
    #: the directory the sources were read from (absolute): later commands judge
    #: staleness against it, so ``hwbot index --sources DIR`` is not undone by ``ask``
    sources_dir: str = ""
    probe: list[float]
    #: None for an index built before the query path moved to ONNX
    encoder: QueryEncoderInfo | None = None
    #: hash of the question-forms files embedded (indexer.forms.forms_sha256); "" for none
    forms_sha256: str = ""
    n_forms: int = 0
    #: hash of the query-side texts embedded (indexer.query_texts); "" for none
    query_texts_sha256: str = ""
    n_query_texts: int = 0


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

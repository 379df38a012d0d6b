"""Choosing and building the FAISS index for a corpus of unit vectors.

Inner product on normalized vectors is cosine similarity. Exact search
(``IndexFlatIP``) is the default and is exact by construction; for large corpora an
approximate index is chosen by size (thresholds measured by ``bench/``).
"""

from __future__ import annotations

import faiss
import numpy as np

__all__ = ["build_ann", "choose_index_type", "FLAT_MAX", "HNSW_M", "HNSW_EF_SEARCH", "HNSW_EF_CONSTRUCTION"]

#: Up to this many vectors, exact search is fast enough (see docs/benchmarks.md).
FLAT_MAX = 50_000
HNSW_M = 32
HNSW_EF_CONSTRUCTION = 80
HNSW_EF_SEARCH = 64


def choose_index_type(n: int) -> str:
    return "flat" if n <= FLAT_MAX else "hnsw"


def build_ann(vectors: np.ndarray, index_type: str | None = None) -> faiss.Index:
    """Build an inner-product index over ``vectors`` (n, d) float32."""
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    n, d = vectors.shape
    kind = index_type or choose_index_type(n)
    if kind == "flat":
        index: faiss.Index = faiss.IndexFlatIP(d)
    elif kind == "hnsw":
        index = faiss.IndexHNSWFlat(d, HNSW_M, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
        index.hnsw.efSearch = HNSW_EF_SEARCH
    else:
        raise ValueError(f"unknown index type {kind!r}")
    if n:
        index.add(vectors)
    return index

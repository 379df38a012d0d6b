"""Choosing and building the FAISS index for a corpus of unit vectors.

Inner product on normalized vectors is cosine similarity. Exact search
(``IndexFlatIP``) is used while it is cheap: it is exact by construction and costs
nothing to build. Past ``FLAT_MAX`` vectors an HNSW graph is chosen. Every constant
here comes from ``python -m bench`` (the scale section of docs/benchmarks.md), which
measures Flat, HNSW and IVF on query p50, recall@10 against exact search, build time
and size at 10k-100k vectors:

* A single-query Flat scan is memory-bound and linear in the corpus (about 0.25 us per
  vector here), so it stays under half of the 5 ms query budget up to ~10k vectors.
* HNSW answers 100k vectors in about 1-3 ms. On embedding-shaped data recall@10 at
  100k was 0.86-0.94 with M=32 even at efSearch 384, but 0.97 with M=48 at efSearch 128
  (two corpora, two builds): the denser graph bridges topic clusters that a sparser one
  leaves weakly connected. efSearch 128 is the smallest swept value with recall >= 0.95
  and margin; 96 sat right at the edge (0.956).
* IVF builds faster and is smaller than HNSW but needs to probe many lists to reach
  the same recall, which makes it slower per query; it is offered for callers that
  must build huge indexes quickly, never chosen automatically.

Search parameters (``efSearch``, ``nprobe``) are stored in the index file by FAISS, so
an index loaded from disk searches exactly as it was built.
"""

from __future__ import annotations

import math

import faiss
import numpy as np

__all__ = [
    "build_ann",
    "choose_index_type",
    "ivf_lists",
    "INDEX_TYPES",
    "FLAT_MAX",
    "HNSW_M",
    "HNSW_EF_SEARCH",
    "HNSW_EF_CONSTRUCTION",
    "IVF_NPROBE",
]

INDEX_TYPES = ("flat", "hnsw", "ivf")
#: Up to this many vectors exact search is fast enough (see docs/benchmarks.md).
FLAT_MAX = 10_000
#: Graph degree: 48 links per node; 32 could not reach recall@10 0.95 at 100k within 5 ms.
HNSW_M = 48
#: Build-time beam width: 64 with M=48 built a graph as good as wider beams, in less time.
HNSW_EF_CONSTRUCTION = 64
#: Query-time beam width: the smallest measured value that held recall@10 >= 0.95 at 100k with margin.
HNSW_EF_SEARCH = 128
#: Lists probed per IVF query (nlist is ~4*sqrt(n)); recall still trails HNSW at equal latency.
IVF_NPROBE = 64
#: IVF trains k-means on at most this many vectors per list (FAISS wants >= 39).
_IVF_TRAIN_PER_LIST = 64


def choose_index_type(n: int) -> str:
    """Exact search while it is cheap; an HNSW graph beyond that."""
    return "flat" if n <= FLAT_MAX else "hnsw"


def ivf_lists(n: int) -> int:
    """Number of IVF lists for ``n`` vectors: ~4*sqrt(n), at least 1 and at most n/39."""
    if n <= 0:
        return 1
    return max(1, min(int(4 * math.sqrt(n)), n // 39 or 1))


def build_ann(vectors: np.ndarray, index_type: str | None = None) -> faiss.Index:
    """Build an inner-product index over ``vectors`` (n, d) float32.

    ``index_type`` is one of :data:`INDEX_TYPES`; ``None`` lets :func:`choose_index_type`
    decide by size.
    """
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    n, d = vectors.shape
    kind = index_type or choose_index_type(n)
    if kind == "flat":
        index: faiss.Index = faiss.IndexFlatIP(d)
    elif kind == "hnsw":
        index = faiss.IndexHNSWFlat(d, HNSW_M, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
        index.hnsw.efSearch = HNSW_EF_SEARCH
    elif kind == "ivf":
        nlist = ivf_lists(n)
        quantizer = faiss.IndexFlatIP(d)
        ivf = faiss.IndexIVFFlat(quantizer, d, nlist, faiss.METRIC_INNER_PRODUCT)
        if n:
            step = max(1, n // (nlist * _IVF_TRAIN_PER_LIST))
            ivf.train(vectors[::step])
        ivf.nprobe = min(IVF_NPROBE, nlist)
        index = ivf
    else:
        raise ValueError(f"unknown index type {kind!r}; choose from {', '.join(INDEX_TYPES)}")
    if n:
        index.add(vectors)
    return index

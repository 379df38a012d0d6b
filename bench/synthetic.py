"""Synthetic 384-d unit vectors for the scale benchmark.

Two families, because recall depends on the geometry far more than on the count:

* ``uniform``: directions uniform on the sphere. The worst case: every point is almost
  equidistant from every other (cosines ~0 +/- 0.05), so the "true" top 10 are decided
  by noise and no approximate index can find them without scanning nearly everything.
* ``embedding``: shaped like sentence embeddings. A shared mean direction (embeddings
  are anisotropic), topics of ~16 texts, and a power-law spectrum over the 384 axes.
  Its parameters were chosen so that, at the size of the shipped notes, the median
  nearest-neighbour cosine and the mean pair cosine match those of the real
  all-MiniLM-L6-v2 sentence vectors of the notes; :func:`geometry` measures both in
  every run so the report shows real and synthetic side by side.

Queries are fresh draws from the same distribution, never copies of stored vectors.
"""

from __future__ import annotations

import numpy as np

__all__ = ["DIM", "FAMILIES", "make_corpus", "geometry"]

DIM = 384
FAMILIES = ("embedding", "uniform")
#: weight of the shared mean direction (anisotropy of real embeddings)
_MEAN_WEIGHT = 0.6
#: within-topic spread relative to the spread of topic centres
_TOPIC_SPREAD = 1.2
#: texts per topic: a note section yields a dozen or two chunks and sentences
_PER_TOPIC = 16
#: eigenvalue decay exponent: lambda_i ~ i^-alpha
_ALPHA = 1.0
_BLOCK = 50_000


def _unit(x: np.ndarray) -> np.ndarray:
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return x


def make_corpus(family: str, n: int, n_queries: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(corpus (n, 384), queries (n_queries, 384)), float32 unit rows, deterministic by seed.

    Generated in blocks so that a million vectors never need more than one extra block
    of temporary memory.
    """
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}; choose from {FAMILIES}")
    rng = np.random.default_rng(seed)
    total = n + n_queries
    out = np.empty((total, DIM), dtype=np.float32)
    if family == "uniform":
        for start in range(0, total, _BLOCK):
            stop = min(total, start + _BLOCK)
            out[start:stop] = _unit(rng.standard_normal((stop - start, DIM), dtype=np.float32))
        return out[:n], out[n:]
    scale = np.arange(1, DIM + 1, dtype=np.float64) ** (-_ALPHA)
    scale = np.sqrt(scale / scale.sum()).astype(np.float32)
    mean = np.zeros(DIM, dtype=np.float32)
    mean[0] = _MEAN_WEIGHT
    n_topics = max(1, n // _PER_TOPIC)
    centres = rng.standard_normal((n_topics, DIM), dtype=np.float32) * scale
    for start in range(0, total, _BLOCK):
        stop = min(total, start + _BLOCK)
        topic = rng.integers(0, n_topics, stop - start)
        noise = rng.standard_normal((stop - start, DIM), dtype=np.float32) * (scale * _TOPIC_SPREAD)
        out[start:stop] = _unit(mean + centres[topic] + noise)
    return out[:n], out[n:]


def geometry(vectors: np.ndarray) -> dict[str, float]:
    """Median nearest-neighbour cosine and mean pair cosine of a small set of unit vectors."""
    x = np.asarray(vectors, dtype=np.float32)
    if len(x) < 2:
        return {"n": float(len(x)), "nn_cosine_median": float("nan"), "pair_cosine_mean": float("nan")}
    gram = x @ x.T
    upper = gram[np.triu_indices(len(x), 1)]
    np.fill_diagonal(gram, -np.inf)
    return {
        "n": float(len(x)),
        "nn_cosine_median": float(np.median(gram.max(axis=1))),
        "pair_cosine_mean": float(upper.mean()),
    }

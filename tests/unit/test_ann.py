"""The ANN index: the type chosen by corpus size, and recall of the approximate ones.

Recall is measured on a small embedding-shaped synthetic set (the generator the scale
benchmark uses), against exact inner-product search, with the shipped parameters.
"""

from __future__ import annotations

import faiss
import numpy as np
import pytest

from bench.synthetic import make_corpus
from indexer import ann

K = 10


def recall_at_k(index: faiss.Index, corpus: np.ndarray, queries: np.ndarray) -> float:
    exact = faiss.IndexFlatIP(corpus.shape[1])
    exact.add(corpus)
    _, truth = exact.search(queries, K)
    _, found = index.search(queries, K)
    hits = sum(len(set(f) & set(t)) for f, t in zip(found.tolist(), truth.tolist()))
    return hits / truth.size


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray]:
    return make_corpus("embedding", 4_000, 100, seed=7)


def test_small_corpora_get_exact_search_and_large_ones_hnsw() -> None:
    assert ann.choose_index_type(0) == "flat"
    assert ann.choose_index_type(8) == "flat"
    assert ann.choose_index_type(ann.FLAT_MAX) == "flat"
    assert ann.choose_index_type(ann.FLAT_MAX + 1) == "hnsw"
    assert ann.choose_index_type(1_000_000) == "hnsw"


def test_the_thresholds_are_sane() -> None:
    assert 1_000 <= ann.FLAT_MAX <= 100_000
    assert ann.HNSW_EF_SEARCH >= K
    assert ann.HNSW_EF_CONSTRUCTION >= ann.HNSW_M
    assert set(ann.INDEX_TYPES) == {"flat", "hnsw", "ivf"}


def test_build_picks_the_index_class_by_size(data: tuple[np.ndarray, np.ndarray]) -> None:
    corpus, _ = data
    flat = ann.build_ann(corpus[:100])
    assert isinstance(flat, faiss.IndexFlatIP) and flat.ntotal == 100
    hnsw = ann.build_ann(corpus, "hnsw")
    assert isinstance(hnsw, faiss.IndexHNSWFlat)
    assert hnsw.metric_type == faiss.METRIC_INNER_PRODUCT
    assert hnsw.hnsw.efSearch == ann.HNSW_EF_SEARCH
    ivf = ann.build_ann(corpus, "ivf")
    assert faiss.extract_index_ivf(ivf).nlist == ann.ivf_lists(len(corpus))


def test_exact_search_finds_each_vector_itself(data: tuple[np.ndarray, np.ndarray]) -> None:
    corpus, _ = data
    index = ann.build_ann(corpus[:500], "flat")
    scores, ids = index.search(corpus[:20], 1)
    assert ids[:, 0].tolist() == list(range(20))
    assert np.allclose(scores[:, 0], 1.0, atol=1e-5)


@pytest.mark.parametrize("kind", ["hnsw", "ivf"])
def test_approximate_indexes_keep_recall_at_10_high(kind: str, data: tuple[np.ndarray, np.ndarray]) -> None:
    corpus, queries = data
    index = ann.build_ann(corpus, kind)
    assert index.ntotal == len(corpus)
    assert recall_at_k(index, corpus, queries) >= 0.95


def test_search_parameters_survive_a_save_and_load(data: tuple[np.ndarray, np.ndarray]) -> None:
    """The store writes and reads the index file: efSearch and nprobe must come back."""
    corpus, _ = data
    hnsw = faiss.deserialize_index(faiss.serialize_index(ann.build_ann(corpus[:1_000], "hnsw")))
    assert hnsw.hnsw.efSearch == ann.HNSW_EF_SEARCH
    ivf = faiss.deserialize_index(faiss.serialize_index(ann.build_ann(corpus[:1_000], "ivf")))
    assert faiss.extract_index_ivf(ivf).nprobe == min(ann.IVF_NPROBE, ann.ivf_lists(1_000))


def test_ivf_list_count_stays_trainable() -> None:
    assert ann.ivf_lists(0) == 1
    assert ann.ivf_lists(10) == 1
    for n in (100, 1_000, 10_000, 100_000, 1_000_000):
        lists = ann.ivf_lists(n)
        assert 1 <= lists <= max(1, n // 39)
    assert ann.ivf_lists(1_000_000) == 4_000


def test_an_empty_corpus_gives_an_empty_exact_index() -> None:
    index = ann.build_ann(np.zeros((0, 384), dtype=np.float32))
    assert isinstance(index, faiss.IndexFlatIP) and index.ntotal == 0


def test_an_unknown_index_type_is_refused(data: tuple[np.ndarray, np.ndarray]) -> None:
    with pytest.raises(ValueError, match="unknown index type"):
        ann.build_ann(data[0][:10], "lsh")

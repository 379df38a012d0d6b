"""Scale: Flat vs HNSW vs IVF on synthetic corpora, and the index type chosen by size.

For every corpus size and geometry family (see :mod:`bench.synthetic`) each index type
is built with :func:`indexer.ann.build_ann` (the exact code the store uses) and queried
one vector at a time, as ``ask`` does. Recall@10 is measured against exact search on the
same corpus. Flat is the floor: the speed-ups are ratios against it in the same run.
A sweep of the query-time knobs (HNSW efSearch, IVF nprobe) at the largest size shows
where the defaults in ``indexer/ann.py`` sit on the recall/latency curve.
"""

from __future__ import annotations

import math
import time
from typing import Any

import faiss
import numpy as np

from bench.results import Section, Table, Target
from bench.stats import median, percentile
from bench.synthetic import FAMILIES, make_corpus
from indexer import ann

__all__ = ["run_scale", "suggest_flat_max", "P50_TARGET_S", "RECALL_TARGET", "K"]

K = 10
P50_TARGET_S = 0.005
RECALL_TARGET = 0.95
HNSW_EF_SWEEP = (32, 64, 96, 128, 192, 256)
IVF_NPROBE_SWEEP = (16, 32, 64, 128)


def _search_each(index: faiss.Index, queries: np.ndarray) -> tuple[list[float], np.ndarray]:
    """Query one vector at a time (as a user question is); per-query seconds and ids."""
    times: list[float] = []
    ids = np.empty((len(queries), K), dtype=np.int64)
    for i in range(len(queries)):
        q = queries[i : i + 1]
        start = time.perf_counter()
        _, found = index.search(q, K)
        times.append(time.perf_counter() - start)
        ids[i] = found[0]
    return times, ids


def _recall(found: np.ndarray, truth: np.ndarray) -> float:
    hits = sum(len(set(f.tolist()) & set(t.tolist())) for f, t in zip(found, truth))
    return hits / float(truth.size) if truth.size else math.nan


def _measure(kind: str, corpus: np.ndarray, queries: np.ndarray, truth: np.ndarray) -> tuple[dict[str, Any], faiss.Index]:
    start = time.perf_counter()
    index = ann.build_ann(corpus, kind)
    build_s = time.perf_counter() - start
    size_mb = len(faiss.serialize_index(index)) / 2**20
    index.search(queries[:2], K)  # touch the pages once; the first query is not the steady state
    times, found = _search_each(index, queries)
    return {
        "kind": kind,
        "build_s": build_s,
        "size_mb": size_mb,
        "p50_s": median(times),
        "p95_s": percentile(times, 95),
        "recall": _recall(found, truth),
    }, index


def _sweep(index: faiss.Index, kind: str, queries: np.ndarray, truth: np.ndarray) -> list[dict[str, Any]]:
    rows = []
    if kind == "hnsw":
        hnsw: Any = getattr(faiss.downcast_index(index), "hnsw")  # noqa: B009 - faiss attributes are untyped
        default = hnsw.efSearch
        for ef in HNSW_EF_SWEEP:
            hnsw.efSearch = ef
            times, found = _search_each(index, queries)
            rows.append({"kind": kind, "knob": f"efSearch={ef}", "value": ef, "p50_s": median(times), "recall": _recall(found, truth)})
        hnsw.efSearch = default
    elif kind == "ivf":
        ivf = faiss.extract_index_ivf(index)
        default = ivf.nprobe
        for nprobe in IVF_NPROBE_SWEEP:
            if nprobe > ivf.nlist:
                continue
            ivf.nprobe = nprobe
            times, found = _search_each(index, queries)
            rows.append({"kind": kind, "knob": f"nprobe={nprobe} of {ivf.nlist}", "value": nprobe, "p50_s": median(times), "recall": _recall(found, truth)})
        ivf.nprobe = default
    return rows


def suggest_flat_max(rows: list[dict[str, Any]]) -> tuple[dict[int, float], int]:
    """(Flat's cost per stored vector at each measured size, the largest size where Flat meets the target).

    A one-query Flat scan reads every vector once, but its cost per vector is not
    constant: it jumps once the vectors no longer fit in the CPU cache. So the threshold
    is read off the measurements, not extrapolated: the largest measured size whose Flat
    p50 (worst over the data families) is within the 5 ms query target.
    """
    flat: dict[int, float] = {}
    for r in rows:
        if r["kind"] == "flat":
            flat[r["n"]] = max(flat.get(r["n"], 0.0), r["p50_s"])
    cost = {n: p50 / n for n, p50 in sorted(flat.items())}
    within = [n for n, p50 in flat.items() if p50 <= P50_TARGET_S]
    return cost, max(within, default=0)


def run_scale(sizes: list[int], families: list[str] | None = None, n_queries: int = 300,
              big_sizes: tuple[int, ...] = (), seed: int = 0) -> Section:
    """Measure every (family, size, index type); ``big_sizes`` run the embedding family only."""
    families = families or list(FAMILIES)
    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    sweep: list[dict[str, Any]] = []
    largest = max(sizes)
    plan = [(f, n) for f in families for n in sizes] + [("embedding", n) for n in big_sizes]
    for family, n in plan:
        corpus, queries = make_corpus(family, n, n_queries, seed=seed)
        exact = faiss.IndexFlatIP(corpus.shape[1])
        exact.add(corpus)
        _, truth = exact.search(queries, K)  # exact top-10, batched
        del exact
        measured = []
        for kind in ("flat", "hnsw", "ivf"):
            row, index = _measure(kind, corpus, queries, truth)
            measured.append(row)
            if family == "embedding" and n == largest:
                sweep.extend(_sweep(index, kind, queries, truth))
            del index
        flat_row = measured[0]
        for row in measured:
            row.update(family=family, n=n, chosen=row["kind"] == ann.choose_index_type(n))
            row["speedup"] = flat_row["p50_s"] / row["p50_s"] if row["p50_s"] > 0 else math.nan
            rows.append(row)
        del corpus, queries
    return _section(rows, sweep, largest, time.perf_counter() - started)


def _ef_note(sweep: list[dict[str, Any]]) -> str:
    """Where the configured efSearch sits: the cheapest swept value that reaches the recall target."""
    good = [s for s in sweep if s["kind"] == "hnsw" and s["recall"] >= RECALL_TARGET]
    if not sweep:
        return "No parameter sweep in this run."
    if not good:
        return f"No swept efSearch reached recall@10 {RECALL_TARGET} at the largest size; efSearch is {ann.HNSW_EF_SEARCH}."
    best = min(good, key=lambda s: s["value"])
    return (f"Smallest swept efSearch with recall@10 >= {RECALL_TARGET} at the largest size: {best['value']} "
            f"(p50 {best['p50_s'] * 1e3:.3f} ms); efSearch in use is {ann.HNSW_EF_SEARCH}.")


def _section(rows: list[dict[str, Any]], sweep: list[dict[str, Any]], largest: int, seconds: float) -> Section:
    table = Table(
        headers=["data", "vectors", "index", "build", "size", "query p50", "query p95", "vs Flat", "recall@10", "chosen"],
        rows=[
            [
                r["family"], f"{r['n']:,}", r["kind"], f"{r['build_s']:.2f} s", f"{r['size_mb']:.1f} MB",
                f"{r['p50_s'] * 1e3:.3f} ms", f"{r['p95_s'] * 1e3:.3f} ms", f"{r['speedup']:.1f}x faster",
                f"{r['recall']:.3f}", "yes" if r["chosen"] else "",
            ]
            for r in rows
        ],
    )
    sweep_table = Table(
        headers=["index", "setting", "query p50", "recall@10"],
        rows=[[s["kind"], s["knob"], f"{s['p50_s'] * 1e3:.3f} ms", f"{s['recall']:.3f}"] for s in sweep],
    )
    cost, suggested = suggest_flat_max(rows)
    chosen = [r for r in rows if r["family"] == "embedding" and r["n"] == largest and r["chosen"]]
    targets = []
    if chosen:
        c = chosen[0]
        targets.append(Target(
            name=f"query at {largest:,} vectors ({c['kind']}, embedding-shaped data)",
            goal="p50 <= 5 ms and recall@10 >= 0.95",
            measured=f"p50 {c['p50_s'] * 1e3:.3f} ms, recall@10 {c['recall']:.3f}",
            holds=c["p50_s"] <= P50_TARGET_S and c["recall"] >= RECALL_TARGET,
        ))
    notes = [
        f"Index parameters in use: FLAT_MAX={ann.FLAT_MAX:,}, HNSW M={ann.HNSW_M}, "
        f"efConstruction={ann.HNSW_EF_CONSTRUCTION}, efSearch={ann.HNSW_EF_SEARCH}, IVF nlist~4*sqrt(n), nprobe={ann.IVF_NPROBE}.",
        "Flat's cost per stored vector per query: " + ", ".join(f"{c * 1e9:.0f} ns at {n:,}" for n, c in cost.items())
        + f". The largest measured size where Flat meets the 5 ms target by itself is {suggested:,}; FLAT_MAX is {ann.FLAT_MAX:,}.",
        _ef_note(sweep),
        "'vs Flat' is Flat's p50 divided by the index's p50 in the same run; recall@10 is against exact search.",
        "Size is the serialized index (vectors plus graph or lists), which is what the index holds in memory.",
    ]
    return Section(
        key="scale",
        title="Scale: index type by corpus size",
        intro="Synthetic 384-d unit vectors; one query at a time, k=10.",
        tables=[table, sweep_table] if sweep else [table],
        targets=targets,
        notes=notes,
        data={"rows": rows, "sweep": sweep, "flat_ns_per_vector": {str(n): c * 1e9 for n, c in cost.items()},
              "suggested_flat_max": suggested},
        seconds=seconds,
    )


def calibration_table(real: np.ndarray, seeds: int = 10) -> Table:
    """Real all-MiniLM-L6-v2 sentence vectors of the notes next to synthetic sets of the same size.

    This is the evidence that the 'embedding' family is shaped like real embeddings: the
    same typical nearest-neighbour and pair cosines (synthetic figures averaged over seeds).
    """
    from bench.synthetic import geometry

    n = len(real)
    got = geometry(real)
    rows = [["real: MiniLM sentence vectors of the shipped notes", str(n), f"{got['nn_cosine_median']:.3f}", f"{got['pair_cosine_mean']:.3f}"]]
    for family in FAMILIES:
        geos = [geometry(make_corpus(family, n, 0, seed=s)[0]) for s in range(seeds)]
        rows.append([f"synthetic: {family}", str(n),
                     f"{np.mean([g['nn_cosine_median'] for g in geos]):.3f}",
                     f"{np.mean([g['pair_cosine_mean'] for g in geos]):.3f}"])
    return Table(headers=["vectors", "n", "median nearest-neighbour cosine", "mean pair cosine"], rows=rows)

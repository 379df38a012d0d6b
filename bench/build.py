"""Index build: embedding throughput against bare ``model.encode``, and the unchanged rebuild.

The floor is the model itself: ``SentenceTransformer.encode`` on exactly the distinct
texts a full build embeds, with the same batch size, in the same process, interleaved
with the builds. A full build (``rebuild=True``) also parses, cleans, chunks, hashes,
builds the ANN index and writes a generation; its throughput is texts embedded per
second of the *whole* build, so every one of those costs counts against it, and so
does checking the ONNX query encoder export (its sha256 and probe agreement). The export
itself is made once per model version, before the timed builds, as it is in use.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bench.corpus import make_sources
from bench.results import Section, Table, Target, fmt_ratio, fmt_s
from bench.stats import median, ratio
from common.locations import default_model_cache_dir
from indexer.build import build_index
from indexer.embedder import PROBE_TEXT, Embedder
from indexer.onnx_export import PROBE_TEXTS, export_query_encoder

__all__ = ["run_build", "RecordingEmbedder", "THROUGHPUT_TARGET", "REBUILD_TARGET"]

THROUGHPUT_TARGET = 0.80
REBUILD_TARGET = 0.10


class RecordingEmbedder(Embedder):
    """The same loaded model, remembering every list of texts the builder asks it to embed.

    The floor then encodes exactly those lists, whatever the builder chose to embed
    (chunks, sentences, headings, after its own de-duplication).
    """

    def __init__(self, inner: Embedder) -> None:
        super().__init__(batch_size=inner.batch_size, device=inner.device)
        self._model = inner.model
        self.calls: list[list[str]] = []

    def encode(self, texts: Sequence[str], *, progress: bool | None = None) -> np.ndarray:
        self.calls.append(list(texts))
        return super().encode(texts, progress=progress)


#: What the builder embeds only to check the model and its export, not part of the corpus.
_CHECKS = ([PROBE_TEXT], list(PROBE_TEXTS))


def _fresh_sources(sources: Path, workdir: Path, copies: int) -> Path:
    src = workdir / "build_sources"
    if src.exists():
        shutil.rmtree(src)
    make_sources(sources, src, copies)
    return src


class _Timings:
    """Full builds interleaved with the floor: bare encodes of exactly what the first build embedded."""

    def __init__(self, embedder: Embedder, src: Path, index_dir: Path) -> None:
        self.model = embedder.model
        self.batch_size = embedder.batch_size
        self.recorder = RecordingEmbedder(embedder)
        self.src, self.index_dir = src, index_dir
        self.full_s: list[float] = []
        self.bare_s: list[float] = []
        self.embedded: list[int] = []
        self.batches: list[list[str]] = []  # what the first full build embedded, call by call

    def full(self) -> None:
        self.recorder.calls.clear()
        rep = build_index(self.src, self.index_dir, self.recorder, rebuild=True, progress=False)
        self.full_s.append(rep.seconds)
        self.embedded.append(rep.embedded)
        if not self.batches:
            self.batches.extend(c for c in self.recorder.calls if c not in _CHECKS)

    def bare(self) -> None:
        t0 = time.perf_counter()
        for texts in self.batches:
            self.model.encode(texts, batch_size=self.batch_size)
        self.bare_s.append(time.perf_counter() - t0)

    def run(self, rounds: int) -> None:
        self.model.encode(["warm up", "the kernels and allocator"], batch_size=self.batch_size)
        for r in range(rounds):
            if not self.batches:  # the floor needs the texts: the first build always goes first
                self.full()
                self.bare()
                continue
            for step in ((self.full, self.bare) if r % 2 == 0 else (self.bare, self.full)):
                step()


def _unchanged_builds(embedder: Embedder, src: Path, index_dir: Path, rounds: int) -> tuple[list[float], list[int]]:
    seconds: list[float] = []
    embedded: list[int] = []
    for _ in range(max(3, rounds)):
        rep = build_index(src, index_dir, embedder, progress=False)
        seconds.append(rep.seconds)
        embedded.append(rep.embedded)
    return seconds, embedded


def _build_section(t: _Timings, unchanged_s: list[float], unchanged_embedded: list[int], copies: int, rounds: int) -> Section:
    n = sum(len(b) for b in t.batches)
    build_tp = median([e / s for e, s in zip(t.embedded, t.full_s)])
    bare_tp = median([n / s for s in t.bare_s])
    tp_ratio = ratio(build_tp, bare_tp)
    rebuild_ratio = ratio(median(unchanged_s), median(t.full_s))
    table = Table(
        headers=["what", "texts embedded", "median time", "texts/s", "vs floor"],
        rows=[
            ["bare model.encode (floor)", str(n), fmt_s(median(t.bare_s)), f"{bare_tp:.1f}", "1.00x"],
            ["full build (build_index, rebuild)", str(t.embedded[0] if t.embedded else 0), fmt_s(median(t.full_s)),
             f"{build_tp:.1f}", fmt_ratio(tp_ratio)],
            ["unchanged rebuild", str(max(unchanged_embedded)), fmt_s(median(unchanged_s)), "-",
             f"{fmt_ratio(rebuild_ratio)} of full build time"],
        ],
    )
    targets = [
        Target(name="build embedding throughput", goal=">= 80% of bare model.encode",
               measured=f"{tp_ratio:.0%}", holds=tp_ratio >= THROUGHPUT_TARGET and all(e == n for e in t.embedded)),
        Target(name="unchanged rebuild re-embeds nothing", goal="0 chunks embedded",
               measured=f"{max(unchanged_embedded)} embedded", holds=max(unchanged_embedded) == 0),
        Target(name="unchanged rebuild time", goal="<= 10% of a full build",
               measured=f"{rebuild_ratio:.1%}", holds=rebuild_ratio <= REBUILD_TARGET),
    ]
    return Section(
        key="build",
        title="Index build",
        intro=(f"{copies} copies of the shipped notes ({copies - 1} perturbed so no text repeats): {n} distinct texts "
               f"(chunks and sentences). {rounds} full builds interleaved with {rounds} bare encodes; medians."),
        tables=[table],
        targets=targets,
        notes=["Throughput counts the whole build: parsing, cleaning, chunking, hashing, ANN index, checking the ONNX "
               "export and writing the generation."],
        data={"texts": n, "full_s": t.full_s, "bare_s": t.bare_s, "unchanged_s": unchanged_s, "embedded": t.embedded,
              "unchanged_embedded": unchanged_embedded, "throughput_ratio": tp_ratio, "rebuild_ratio": rebuild_ratio},
    )


def run_build(embedder: Embedder, sources: Path, workdir: Path, *, copies: int, rounds: int) -> tuple[Section, Path, Path]:
    """Measure full and unchanged builds; returns the section, the sources and a built index dir."""
    started = time.perf_counter()
    src = _fresh_sources(sources, workdir, copies)
    index_dir = workdir / "build_index"
    export_query_encoder(embedder, default_model_cache_dir())  # once per model version: made now if this cache has none yet
    timings = _Timings(embedder, src, index_dir)
    timings.run(rounds)
    unchanged_s, unchanged_embedded = _unchanged_builds(embedder, src, index_dir, rounds)
    section = _build_section(timings, unchanged_s, unchanged_embedded, copies, rounds)
    section.seconds = time.perf_counter() - started
    return section, src, index_dir

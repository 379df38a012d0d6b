"""What each mode measures, and running the sections in an order that shares their work.

Scale needs no model, so it runs first. The build section loads sentence-transformers
(builds embed with it) and leaves an index of the shipped notes; the query-side
sections reuse that index through one engine on the ONNX encoder, so the model and the
index are loaded once per run. A section that raises is recorded as failed (its error
in the report) and the run goes on.
"""

from __future__ import annotations

import datetime as dt
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.machine import load_average, machine_info
from bench.results import Run, Section, Target

__all__ = ["Plan", "PLANS", "run_all"]


@dataclass(frozen=True)
class Plan:
    scale_sizes: tuple[int, ...]
    scale_big: tuple[int, ...]
    scale_queries: int
    build_copies: int
    build_rounds: int
    latency_questions: int | None
    latency_rounds: int
    #: fresh processes of each kind, in rotation; the cold-start ratio's median moved by 0.3x between
    #: runs of 5 on these machines (1.32x-1.63x within one hour), and by 0.13x between runs of 11
    #: (1.35x-1.48x within an hour, 2026-12-07), so the default runs 25
    coldstart_rounds: int
    coldstart_phases: bool
    slack_events: int
    batch_questions: int
    batch_rounds: int
    parity_questions: int | None
    memory_answers: int


PLANS = {
    "smoke": Plan((1_000,), (), 20, 1, 1, 4, 2, 1, False, 10, 40, 1, 6, 5),
    "default": Plan((10_000, 30_000, 100_000), (), 300, 8, 3, None, 3, 25, True, 50, 500, 3, None, 100),
    "full": Plan((10_000, 30_000, 100_000), (1_000_000,), 300, 8, 3, None, 3, 25, True, 50, 500, 3, None, 100),
}


def _failed(key: str, title: str, exc: BaseException) -> Section:
    line = " ".join(f"{type(exc).__name__}: {exc}".split())[:400]
    return Section(key=key, title=title, intro="This section failed in this run.",
                   targets=[Target(name=title, goal="measured", measured=f"failed: {line}", holds=None)],
                   notes=["```\n" + traceback.format_exc(limit=6) + "```"], data={"error": line})


class _Runner:
    """The sections of one run, as named steps sharing one embedder, one index and one engine."""

    def __init__(self, plan: Plan, only: list[str], work: Path) -> None:
        self.plan, self.only, self.work = plan, only, work
        self.sections: list[Section] = []
        self._embedder: Any = None
        self._engine: Any = None
        self._shipped_index: Path | None = None

    def attempt(self, key: str, title: str, fn: Callable[[], Section]) -> None:
        if key not in self.only:
            return
        print(f"[bench] {title}…", flush=True)
        try:
            self.sections.append(fn())
        except Exception as exc:  # a failed section is reported, not fatal to the run
            self.sections.append(_failed(key, title, exc))

    def embedder(self) -> Any:
        """The build-time encoder (sentence-transformers), loaded once."""
        if self._embedder is None:
            from indexer.embedder import Embedder

            self._embedder = Embedder()
            self._embedder.encode_one("warm up")
        return self._embedder

    def index_dir(self) -> Path:
        """An index of the shipped notes, built and fresh (reusing the build section's)."""
        from indexer.lifecycle import update_index
        from knowledge.paths import SOURCES_DIR
        from knowledge.qa.fixed_texts import query_side_texts

        index = self.work / "index"
        if self._shipped_index is not None and not index.exists():
            shutil.copytree(self._shipped_index, index)  # the same sources, already embedded: reuse, don't re-embed
        # with the answering side's fixed texts, as `hwbot index` builds it: a cold ask then finds it fresh
        update_index(index, SOURCES_DIR, default_sources=SOURCES_DIR, only_if_stale=True, embedder=self.embedder(), progress=False,
                     query_texts=query_side_texts())
        return index

    def engine(self) -> Any:
        """The engine users get: the query path on the ONNX encoder."""
        if self._engine is None:
            from knowledge.paths import SOURCES_DIR
            from knowledge.qa.service import QAEngine

            self._engine = QAEngine.open(self.index_dir(), sources_dir=SOURCES_DIR, auto_build=False)
        return self._engine

    def scale(self) -> Section:
        from bench.scale import run_scale

        p = self.plan
        return run_scale(list(p.scale_sizes), n_queries=p.scale_queries, big_sizes=p.scale_big)

    def build(self) -> Section:
        from bench.build import run_build
        from knowledge.paths import SOURCES_DIR

        p = self.plan
        section, _, index_dir = run_build(self.embedder(), SOURCES_DIR, self.work, copies=p.build_copies, rounds=p.build_rounds)
        if p.build_copies == 1:  # the build corpus is exactly the shipped notes
            self._shipped_index = index_dir
        return section

    def latency(self) -> Section:
        from bench.latency import load_questionnaire, run_latency

        return run_latency(self.engine(), questions=load_questionnaire(self.plan.latency_questions), rounds=self.plan.latency_rounds)

    def batch(self) -> Section:
        from bench.batch import run_batch
        from bench.latency import load_questionnaire

        return run_batch(self.engine(), load_questionnaire(), n=self.plan.batch_questions, rounds=self.plan.batch_rounds)

    def parity(self) -> Section:
        from bench.latency import load_questionnaire
        from bench.parity import run_parity

        return run_parity(self.engine(), self.embedder(), load_questionnaire(self.plan.parity_questions))

    def coldstart(self) -> Section:
        from bench.coldstart import run_coldstart
        from bench.latency import load_questionnaire

        record = self.engine().store.manifest.encoder
        if record is None:
            raise RuntimeError("the index records no ONNX export")
        return run_coldstart(self.index_dir(), Path(record.path), load_questionnaire(1)[0],
                             rounds=self.plan.coldstart_rounds, phases=self.plan.coldstart_phases)

    def memory(self) -> Section:
        from bench.memory import run_memory

        return run_memory(self.index_dir(), self.work, n=self.plan.memory_answers)

    def slack(self) -> Section:
        from bench.slack_workers import run_slack_workers

        return run_slack_workers(self.engine, self.index_dir(), n=self.plan.slack_events)

    def steps(self) -> list[tuple[str, str, Callable[[], Section]]]:
        return [
            ("scale", "Scale: index type by corpus size", self.scale),
            ("build", "Index build", self.build),
            ("latency", "Warm answer latency", self.latency),
            ("batch", "Batch answering", self.batch),
            ("parity", "Answer parity", self.parity),
            ("coldstart", "Cold start", self.coldstart),
            ("memory", "Slack worker memory", self.memory),
            ("slack_workers", "Slack: two workers", self.slack),
        ]

    def compare_geometry(self) -> None:
        """Add the real notes' geometry to the scale section, when both were measured."""
        scale = next((s for s in self.sections if s.key == "scale" and "error" not in s.data), None)
        if scale is None or self._engine is None:
            return
        from bench.scale import calibration_table

        try:
            scale.tables.append(calibration_table(self._engine.store.sentence_vectors))
        except Exception as exc:  # a missing comparison must not lose the run
            scale.notes.append(f"Geometry comparison failed: {type(exc).__name__}: {exc}")
        scale.notes.append("The last table compares the geometry of the synthetic families with the real "
                           "embeddings of the notes, at the notes' size.")


def run_all(only: list[str], *, mode: str, repo: Path) -> Run:
    started_at = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    t0 = time.perf_counter()
    machine = machine_info(repo)
    runner = _Runner(PLANS[mode], only, Path(tempfile.mkdtemp(prefix="hwbot-bench-")))
    try:
        for key, title, step in runner.steps():
            runner.attempt(key, title, step)
        runner.compare_geometry()
    finally:
        shutil.rmtree(runner.work, ignore_errors=True)
    if "torch" in sys.modules:
        machine["torch_threads"] = sys.modules["torch"].get_num_threads()
    machine["load_average_end"] = load_average()
    return Run(mode=mode, started_at=started_at, seconds=time.perf_counter() - t0, machine=machine, sections=runner.sections)

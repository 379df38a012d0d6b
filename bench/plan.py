"""What each mode measures, and running the sections in an order that shares their work.

Scale needs no model, so it runs first. The rest share one loaded embedder; the index
that the latency section builds from the shipped notes is reused by the cold-start
and Slack sections, so the model and index are loaded once per run. A section that
raises is recorded as failed (its error in the report) and the run goes on.
"""

from __future__ import annotations

import datetime as dt
import shutil
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
    coldstart_rounds: int
    coldstart_phases: bool
    slack_events: int


PLANS = {
    "smoke": Plan((1_000,), (), 20, 1, 1, 4, 2, 1, False, 10),
    "default": Plan((10_000, 30_000, 100_000), (), 300, 8, 3, None, 3, 5, True, 50),
    "full": Plan((10_000, 30_000, 100_000), (1_000_000,), 300, 8, 3, None, 3, 5, True, 50),
}


def _failed(key: str, title: str, exc: BaseException) -> Section:
    line = " ".join(f"{type(exc).__name__}: {exc}".split())[:400]
    return Section(key=key, title=title, intro="This section failed in this run.",
                   targets=[Target(name=title, goal="measured", measured=f"failed: {line}", holds=None)],
                   notes=["```\n" + traceback.format_exc(limit=6) + "```"], data={"error": line})


def run_all(only: list[str], *, mode: str, repo: Path) -> Run:
    plan = PLANS[mode]
    started_at = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    t0 = time.perf_counter()
    machine = machine_info(repo)
    sections: list[Section] = []
    work = Path(tempfile.mkdtemp(prefix="hwbot-bench-"))
    shared: dict[str, Any] = {}

    def attempt(key: str, title: str, fn: Callable[[], Section]) -> None:
        if key not in only:
            return
        print(f"[bench] {title}…", flush=True)
        try:
            sections.append(fn())
        except Exception as exc:  # a failed section is reported, not fatal to the run
            sections.append(_failed(key, title, exc))

    def embedder() -> Any:
        if "embedder" not in shared:
            from indexer.embedder import Embedder

            emb = Embedder()
            emb.encode_one("warm up")
            shared["embedder"] = emb
        return shared["embedder"]

    def engine() -> Any:
        if "engine" not in shared:
            from knowledge.paths import SOURCES_DIR
            from knowledge.qa.engine import QAEngine

            built = shared.get("shipped_index")
            if built is not None and not (work / "index").exists():
                shutil.copytree(built, work / "index")  # the same sources, already embedded: reuse, don't re-embed
            shared["engine"] = QAEngine.open(work / "index", sources_dir=SOURCES_DIR, embedder=embedder(), progress=False)
        return shared["engine"]

    def scale() -> Section:
        from bench.scale import run_scale

        return run_scale(list(plan.scale_sizes), n_queries=plan.scale_queries, big_sizes=plan.scale_big)

    def build() -> Section:
        from bench.build import run_build
        from knowledge.paths import SOURCES_DIR

        section, _, index_dir = run_build(embedder(), SOURCES_DIR, work, copies=plan.build_copies, rounds=plan.build_rounds)
        if plan.build_copies == 1:  # the build corpus is exactly the shipped notes
            shared["shipped_index"] = index_dir
        return section

    def latency() -> Section:
        from bench.latency import load_questionnaire, run_latency

        return run_latency(engine(), questions=load_questionnaire(plan.latency_questions), rounds=plan.latency_rounds)

    def coldstart() -> Section:
        from bench.coldstart import run_coldstart
        from bench.latency import load_questionnaire

        engine()  # makes sure the index the processes use is built and fresh
        return run_coldstart(work / "index", load_questionnaire(1)[0], rounds=plan.coldstart_rounds, phases=plan.coldstart_phases)

    def slack() -> Section:
        from bench.slack_ack import run_slack_ack, slack_available

        if not slack_available():
            raise RuntimeError("bot/slack or tests/slack is not there yet")
        return run_slack_ack(engine(), n=plan.slack_events)

    try:
        attempt("scale", "Scale: index type by corpus size", scale)
        attempt("build", "Index build", build)
        attempt("latency", "Warm answer latency", latency)
        attempt("coldstart", "Cold start", coldstart)
        attempt("slack", "Slack HTTP ack", slack)
        attempt("slack", "Slack: two workers", lambda: __import__("bench.slack_workers").slack_workers.run_slack_workers(engine, work / "index", n=10 if mode == "smoke" else 200))
        scale_section = next((s for s in sections if s.key == "scale" and "error" not in s.data), None)
        if scale_section is not None and "engine" in shared:
            from bench.scale import calibration_table

            try:
                scale_section.tables.append(calibration_table(shared["engine"].store.sentence_vectors))
            except Exception as exc:  # a missing comparison must not lose the run
                scale_section.notes.append(f"Geometry comparison failed: {type(exc).__name__}: {exc}")
            scale_section.notes.append("The last table compares the geometry of the synthetic families with the real "
                                       "embeddings of the notes, at the notes' size.")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    import sys

    if "torch" in sys.modules:
        machine["torch_threads"] = sys.modules["torch"].get_num_threads()
    machine["load_average_end"] = load_average()
    return Run(mode=mode, started_at=started_at, seconds=time.perf_counter() - t0, machine=machine, sections=sections)

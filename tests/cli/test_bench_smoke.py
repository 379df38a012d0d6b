"""The benchmark runs end to end in smoke mode and produces a well-formed report.

This is not a timed test: it asserts structure (every section measured, tables
present, ratios computed, recall in [0, 1], a PNG written), never speed. Smoke mode
must never touch the published docs/benchmarks.md.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.corpus import embed_texts, make_sources
from bench.results import Run
from bench.scale import suggest_flat_max
from bench.stats import interleave, percentile, ratio
from bench.synthetic import geometry, make_corpus

REPO = Path(__file__).resolve().parents[2]
DOCS_REPORT = REPO / "docs" / "benchmarks.md"
SECTIONS = {"scale", "build", "latency", "batch", "parity", "coldstart", "memory", "slack_workers"}


def _digest(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


@pytest.fixture(scope="module")
def smoke(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path, Run]:
    out = tmp_path_factory.mktemp("bench")
    before = _digest(DOCS_REPORT)
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    env.pop("HWBOT_INDEX_DIR", None)
    proc = subprocess.run(
        [sys.executable, "-m", "bench", "--smoke", "--out", str(out), "--json", str(out / "run.json")],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=840, stdin=subprocess.DEVNULL,
    )
    assert _digest(DOCS_REPORT) == before, "smoke mode changed docs/benchmarks.md"
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return proc, out, Run.model_validate_json((out / "run.json").read_text(encoding="utf-8"))


@pytest.mark.slow
@pytest.mark.timeout(900)  # a hang guard for a shared, loaded machine; nothing here asserts speed
def test_smoke_measures_every_section(smoke: tuple[subprocess.CompletedProcess[str], Path, Run]) -> None:
    _, _, run = smoke
    assert run.mode == "smoke"
    assert {s.key for s in run.sections} == SECTIONS
    for section in run.sections:
        assert "error" not in section.data, section.data.get("error")
        assert section.tables and all(t.rows for t in section.tables), section.key
        for table in section.tables:
            assert all(len(row) == len(table.headers) for row in table.rows)
        assert section.targets and all(t.holds is not None for t in section.targets), section.key


@pytest.mark.slow
@pytest.mark.timeout(900)  # a hang guard for a shared, loaded machine; nothing here asserts speed
def test_smoke_computes_ratios_against_floors(smoke: tuple[subprocess.CompletedProcess[str], Path, Run]) -> None:
    _, _, run = smoke
    data = {s.key: s.data for s in run.sections}
    for value in (
        data["latency"]["p50_ratio"],
        data["latency"]["p95_ratio"],
        data["coldstart"]["ratio"],
        data["coldstart"]["ratio_vs_st"],
        data["batch"]["ratio"],
        data["build"]["throughput_ratio"],
        data["build"]["rebuild_ratio"],
    ):
        assert isinstance(value, float) and math.isfinite(value) and value > 0
    assert data["build"]["unchanged_embedded"] == [0] * len(data["build"]["unchanged_embedded"])
    assert all(e == data["build"]["texts"] for e in data["build"]["embedded"])
    assert data["slack_workers"]["lost"] == 0 and data["slack_workers"]["twice"] == 0
    assert data["coldstart"]["failures"] == []  # recommend --text included: it read the words with the learned heads
    assert data["coldstart"]["recommend_text_s"] and all(t > 0 for t in data["coldstart"]["recommend_text_s"])
    assert data["parity"]["differ"] == []  # the ONNX path answers exactly as sentence-transformers does
    onnx_worker = data["memory"]["runs"]["onnx"]
    assert onnx_worker["torch"] is False and onnx_worker["idle"] > 0, onnx_worker.get("stderr")
    assert data["memory"]["runs"]["sentence-transformers"]["torch"] is True


@pytest.mark.slow
@pytest.mark.timeout(900)  # a hang guard for a shared, loaded machine; nothing here asserts speed
def test_smoke_recall_values_are_fractions(smoke: tuple[subprocess.CompletedProcess[str], Path, Run]) -> None:
    _, _, run = smoke
    scale = next(s for s in run.sections if s.key == "scale")
    rows = scale.data["rows"]
    assert {r["kind"] for r in rows} == {"flat", "hnsw", "ivf"}
    assert {r["family"] for r in rows} == {"embedding", "uniform"}
    for r in rows + scale.data["sweep"]:
        assert 0.0 <= r["recall"] <= 1.0
        assert r["p50_s"] > 0
    assert all(r["recall"] == pytest.approx(1.0, abs=0.02) for r in rows if r["kind"] == "flat")
    assert sum(r["chosen"] for r in rows) == 2  # one index type chosen per (family, size)


@pytest.mark.slow
@pytest.mark.timeout(900)  # a hang guard for a shared, loaded machine; nothing here asserts speed
def test_smoke_writes_markdown_and_plot_to_its_own_dir(smoke: tuple[subprocess.CompletedProcess[str], Path, Run]) -> None:
    proc, out, run = smoke
    text = (out / "benchmarks.md").read_text(encoding="utf-8")
    assert text.startswith("# hwbot benchmarks")
    for heading in ("## Machine", "## Targets", "## Scale", "## Index build", "## Warm answer latency", "## Batch answering",
                    "## Answer parity", "## Cold start", "## Slack worker memory", "## Slack: two workers, every retry to the other one"):
        assert heading in text
    assert "| target | goal | measured | verdict |" in text
    assert text.count("\n|---") >= 8  # a markdown table per measurement
    assert "](bench_latency.png)" in text
    assert (out / "bench_latency.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for target in run.targets():
        assert target.name in text
    assert "wrote" in proc.stdout


def test_smoke_refuses_to_write_into_docs() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "bench", "--smoke", "--out", str(REPO / "docs")],
        cwd=REPO, capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 2
    assert "never writes docs" in proc.stderr


def test_percentile_and_ratio() -> None:
    assert percentile([3.0, 1.0, 2.0], 50) == 2.0
    assert percentile([0.0, 10.0], 95) == pytest.approx(9.5)
    assert math.isnan(percentile([], 50))
    assert ratio(3.0, 2.0) == 1.5
    assert math.isnan(ratio(1.0, 0.0))


def test_interleave_alternates_who_goes_first() -> None:
    order: list[str] = []
    a, b = interleave(lambda: order.append("a"), lambda: order.append("b"), 4)
    assert order == ["a", "b", "b", "a", "a", "b", "b", "a"]
    assert len(a) == len(b) == 4 and all(t >= 0 for t in a + b)


def test_synthetic_vectors_are_unit_deterministic_and_shaped() -> None:
    for family in ("embedding", "uniform"):
        corpus, queries = make_corpus(family, 500, 20, seed=3)
        assert corpus.shape == (500, 384) and queries.shape == (20, 384)
        assert abs(float(abs(corpus).sum()) - float(abs(make_corpus(family, 500, 20, seed=3)[0]).sum())) == 0.0
        assert abs(corpus @ corpus[0]).max() == pytest.approx(1.0, abs=1e-5)
        assert (abs((corpus**2).sum(axis=1) - 1.0) < 1e-4).all()
    emb = geometry(make_corpus("embedding", 60, 0, seed=1)[0])
    uni = geometry(make_corpus("uniform", 60, 0, seed=1)[0])
    assert emb["nn_cosine_median"] > uni["nn_cosine_median"] + 0.3  # embedding-shaped data has real neighbours


def test_flat_max_is_the_largest_measured_size_where_flat_meets_the_target() -> None:
    rows = [{"kind": "flat", "n": 10_000, "p50_s": 0.0026}, {"kind": "flat", "n": 30_000, "p50_s": 0.028},
            {"kind": "flat", "n": 10_000, "p50_s": 0.0031}, {"kind": "hnsw", "n": 100_000, "p50_s": 0.001}]
    cost, n = suggest_flat_max(rows)
    assert n == 10_000
    assert cost[10_000] == pytest.approx(3.1e-7)  # the worst family counts
    assert cost[30_000] > cost[10_000]
    assert suggest_flat_max([{"kind": "flat", "n": 1_000_000, "p50_s": 0.3}])[1] == 0


def test_build_corpus_copies_share_no_text(tmp_path: Path) -> None:
    from knowledge.paths import SOURCES_DIR

    one = embed_texts(SOURCES_DIR)
    make_sources(SOURCES_DIR, tmp_path, 3)
    three = embed_texts(tmp_path)
    assert len(three) > 2.5 * len(one)
    assert len(list(tmp_path.iterdir())) == 3 * len(list(SOURCES_DIR.glob("*.md")))
    ids = {json.dumps(p.read_text(encoding="utf-8").split("\n", 2)[1]) for p in tmp_path.iterdir()}
    assert len(ids) == len(list(tmp_path.iterdir()))  # every copy has its own source id


def test_a_partial_run_carries_the_published_sections_it_did_not_measure() -> None:
    from bench.report import render_markdown
    from bench.results import Section, Target

    published = (
        "# hwbot benchmarks\n\nGenerated by `python -m bench` on 2026-01-02 03:04 UTC in 9 s.\n\n"
        "## Targets\n\n| target | goal | measured | verdict |\n|---|---|---|---|\n| q at 100k | <= 5 ms | 2 ms | holds |\n"
        "| cold start | old goal | 1.1x | holds |\n\n"
        "## Scale: index type by corpus size\n\nthe scale figures\n\n- **Target** q at 100k: <= 5 ms. Measured 2 ms: **holds**.\n\n"
        "## Cold start\n\nold cold start\n"
    )
    new = Section(key="coldstart", title="Cold start", intro="new cold start",
                  targets=[Target(name="cold start", goal="new goal", measured="0.1x", holds=True)])
    text = render_markdown(Run(mode="default", started_at="now", seconds=1.0, machine={}, sections=[new]),
                           plot=None, carried=published)
    assert "the scale figures" in text and "Carried over unchanged from the published run of 2026-01-02 03:04 UTC" in text
    assert "| q at 100k (2026-01-02 03:04 UTC) | <= 5 ms | 2 ms | holds |" in text
    assert "old cold start" not in text and "old goal" not in text and "new cold start" in text
    again = render_markdown(Run(mode="default", started_at="later", seconds=1.0, machine={}, sections=[new]),
                            plot=None, carried=text)
    assert again.count("Carried over unchanged") == 1 and "published run of 2026-01-02 03:04 UTC" in again
    assert "| q at 100k (2026-01-02 03:04 UTC) | <= 5 ms | 2 ms | holds |" in again

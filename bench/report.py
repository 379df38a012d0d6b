"""Rendering a run: ``benchmarks.md`` (machine, targets, tables) and the latency-vs-size plot.

The markdown is generated whole from a :class:`~bench.results.Run`, so the published
figures are always those of one run; nothing in it is edited by hand.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from bench.results import Run, Section, Table

__all__ = ["carried_sections", "render_markdown", "write_plot", "write_report", "PLOT_NAME", "REPORT_NAME"]

PLOT_NAME = "bench_latency.png"
REPORT_NAME = "benchmarks.md"


def _table(table: Table) -> list[str]:
    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(cell(h) for h in table.headers) + " |", "|" + "---|" * len(table.headers)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in table.rows]
    return lines + [""]


def _holds(value: bool | None) -> str:
    return "not measured" if value is None else ("holds" if value else "MISSED")


def _machine(run: Run) -> list[str]:
    m = run.machine
    pk = m.get("packages", {})
    blas = "; ".join(
        f"{b.get('internal_api')} {b.get('version') or ''} ({b.get('num_threads')} threads"
        + (f", {b['architecture']}" if b.get("architecture") else "") + ")"
        for b in m.get("blas", [])
    )
    rows = [
        ["CPU", f"{m.get('cpu')} ({m.get('usable_cpus')} usable of {m.get('logical_cpus')} logical)"],
        ["memory", f"{m.get('memory_gib')} GiB"],
        ["OS / Python", f"{m.get('os')} / {m.get('python')}"],
        ["packages", ", ".join(f"{k} {v}" for k, v in pk.items())],
        ["threads", ", ".join(f"{k}={v}" for k, v in m.get("thread_env", {}).items())
         + (f"; torch {m['torch_threads']}" if "torch_threads" in m else "")],
        ["BLAS / OpenMP", blas or "n/a"],
        ["load average (1, 5, 15 min)", f"start {m.get('load_average_start')}, end {m.get('load_average_end')}"],
        ["commit", str(m.get("git_commit"))],
    ]
    return _table(Table(headers=["", ""], rows=rows))


#: How to read each section: the method, which does not change from run to run.
EXPLAIN = {
    "scale": (
        "Two synthetic families (see bench/synthetic.py). *embedding* is shaped like sentence embeddings (a shared "
        "mean direction, topics of ~16 texts, a power-law spectrum); the geometry table at the end compares it with "
        "the real MiniLM vectors of the notes (its neighbours are a little less distinct than real ones, which "
        "makes it the harder of the two for an approximate index). *uniform* (random directions) is the worst case: all points are nearly "
        "equidistant (pair cosines ~0 +/- 0.05), so the exact top 10 are decided by noise and an approximate index "
        "cannot find them without scanning almost everything; its low HNSW/IVF recall is expected and is not what "
        "hwbot's corpora look like. The 5 ms / 0.95 target is judged on the embedding family, with the index type "
        "that `indexer.ann.choose_index_type` picks for that size. How the thresholds follow from these figures: "
        "exact search is kept while it meets the 5 ms target by itself, so FLAT_MAX is the largest measured size "
        "where Flat's p50 is within 5 ms (its cost per vector jumps once the vectors outgrow the CPU cache, so it "
        "is read off the measurements, not extrapolated); beyond it HNSW is chosen, with M and efSearch from the "
        "sweep: the smallest efSearch that keeps recall@10 >= 0.95 at 100k with margin. Flat's absolute time is the "
        "most load-sensitive figure here, because it streams the whole corpus through memory bandwidth that other "
        "processes share: FLAT_MAX was set from a run on a quiet machine (load average below 1), and a run under load "
        "(see the load average above) can show Flat at 10k well over 5 ms; the HNSW/Flat ratios are the robust part. IVF builds faster and smaller but needs many probes for the same "
        "recall, so it is available (`build_ann(v, \"ivf\")`) but never chosen automatically."
    ),
    "build": (
        "The corpus is the shipped notes plus perturbed copies: the builder keys vectors by the text's sha256, so "
        "exact copies would cost nothing; each copy swaps ~1 word in 10 for another word of the notes."
    ),
    "latency": (
        "The floor is one encode of the question by the engine's own query encoder (onnxruntime + tokenizers, "
        "loaded): no answer can be faster than embedding the question once."
    ),
    "batch": (
        "A batch knows all its questions up front, so `ask --batch`, `faq` and `eval` encode them 32 at a time "
        "(`QAEngine.ask_many`) and pass each vector to `ask`. The floor encodes the same questions the same way "
        "with nothing but onnxruntime, tokenizers and numpy."
    ),
    "parity": (
        "The query path moved from sentence-transformers to an ONNX export of the same model; users must not be "
        "able to tell. Scores in the JSON are rounded to 4 decimals, so byte-identical lines mean the same "
        "citations, order, scores and answer text."
    ),
    "coldstart": (
        "The floor is a script that imports onnxruntime, tokenizers and numpy, loads the build's ONNX export and "
        "the package's tokenizer and encodes one query: what any process that answers must at least do. The bare "
        "sentence-transformers script is the old query path, kept to show what leaving torch out saves. hwbot's "
        "console script ends its process with os._exit once its output is flushed and its exit handlers have run "
        "(bot.cli.run), skipping the interpreter's teardown; the floor script exits normally and so pays its own "
        "(its wall time minus its in-process timers and a ~0.04 s interpreter start)."
    ),
    "memory": (
        "A Slack worker stays up for days: what matters is the resident set idle and whether it grows with use."
    ),
    "slack_workers": (
        "Slack retries an event it has not seen acked within 3 s, and behind a load balancer the retry can reach "
        "another worker: the ack must come back at once, and across workers a retry must never produce a second answer."
    ),
}


def _section(section: Section) -> list[str]:
    lines = [f"## {section.title}", "", section.intro, ""]
    if section.key in EXPLAIN:
        lines += [EXPLAIN[section.key], ""]
    for table in section.tables:
        lines += _table(table)
    for target in section.targets:
        lines.append(f"- **Target** {target.name}: {target.goal}. Measured {target.measured}: **{_holds(target.holds)}**.")
    if section.targets:
        lines.append("")
    for note in section.notes:
        lines.append(f"- {note}")
    lines += ["", f"_Section time: {section.seconds:.0f} s._", ""]
    return lines


def carried_sections(published: str, run: Run) -> tuple[list[str], list[list[str]]]:
    """Sections of a previously published report that this run did not measure, verbatim.

    Some sections take far longer than the rest (scale: ~15 min on 2 cores); a run with
    ``--only`` can keep the published ones, each marked as from its own earlier run,
    with their rows of the targets table. Returns (markdown lines, target rows).
    """
    stamp = re.search(r"on (\d{4}-\d\d-\d\d \d\d:\d\d UTC)", published)
    when = stamp.group(1) if stamp else "an earlier run"
    measured = {s.title for s in run.sections}
    chunks = re.split(r"(?m)^(?=## )", published)
    old_rows = {}
    for line in published.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 4:
            old_rows[cells[0]] = cells
    lines: list[str] = []
    rows: list[list[str]] = []
    for chunk in chunks:
        title = chunk.splitlines()[0][3:].strip() if chunk.startswith("## ") else ""
        if not title or title in measured or title in ("Machine", "Targets"):
            continue
        body = chunk.rstrip().splitlines()
        earlier = re.search(r"_Carried over unchanged from the published run of (.+?);", chunk)
        if earlier:  # carried twice: it keeps the date of the run that measured it
            lines += body + [""]
        else:
            lines += [body[0], "", f"_Carried over unchanged from the published run of {when}; not re-measured in this run._"]
            lines += body[1:] + [""]
        date = earlier.group(1) if earlier else when
        for name in re.findall(r"^- \*\*Target\*\* (.+?): ", chunk, flags=re.M):
            row = old_rows.get(name) or old_rows.get(f"{name} ({date})")
            if row:
                rows.append([f"{name} ({date})"] + row[1:])
    return lines, rows


def render_markdown(run: Run, *, plot: str | None = PLOT_NAME, preamble: list[str] | None = None,
                    carried: str | None = None) -> str:
    lines = [
        "# hwbot benchmarks",
        "",
        f"Generated by `python -m bench{' --smoke' if run.mode == 'smoke' else ' --full' if run.mode == 'full' else ''}` "
        f"on {run.started_at} in {run.seconds:.0f} s. Every figure below is from that one run; do not edit by hand.",
        "",
        "These machines are shared and noisy, so figures are medians (or high percentiles over many samples) and each "
        "claim is a ratio against a floor measured in the same run, interleaved with what it is compared to.",
        "",
    ]
    if carried:
        lines += ["Sections marked *carried over* were not re-measured in this run: they are reproduced unchanged "
                  "from the report this run replaced, with the date of their own run.", ""]
    lines += preamble or []
    lines += ["## Machine", ""] + _machine(run)
    lines += ["## Targets", ""]
    kept, kept_rows = carried_sections(carried, run) if carried else ([], [])
    lines += _table(Table(
        headers=["target", "goal", "measured", "verdict"],
        rows=[[t.name, t.goal, t.measured, _holds(t.holds)] for t in run.targets()] + kept_rows,
    ))
    if plot:
        own = any(sec.key == "scale" and sec.data.get("rows") for sec in run.sections)
        lines += [f"![Query latency against corpus size]({plot})", ""]
        if not own:
            lines += ["_The plot comes with the carried-over scale section, from its own run._", ""]
    lines += kept
    for section in run.sections:
        lines += _section(section)
    return "\n".join(lines).rstrip() + "\n"


def write_plot(run: Run, path: Path) -> bool:
    """Query p50 against corpus size, per index type and data family (log-log). False without data."""
    scale = next((s for s in run.sections if s.key == "scale" and s.data.get("rows")), None)
    if scale is None:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5), dpi=110)
    colours = {"flat": "tab:blue", "hnsw": "tab:orange", "ivf": "tab:green"}
    styles = {"embedding": "-", "uniform": ":"}
    rows = scale.data["rows"]
    for family in sorted({r["family"] for r in rows}):
        for kind in ("flat", "hnsw", "ivf"):
            pts = sorted((r["n"], r["p50_s"] * 1e3, r["recall"]) for r in rows if r["family"] == family and r["kind"] == kind)
            if not pts:
                continue
            xs, ys, recalls = zip(*pts)
            ax.plot(xs, ys, styles.get(family, "--"), marker="o", color=colours[kind], label=f"{kind}, {family} data")
            if family == "embedding" and kind != "flat":
                for x, y, rc in pts:
                    ax.annotate(f"R@10 {rc:.2f}", (x, y), textcoords="offset points", xytext=(4, -12), fontsize=7, color=colours[kind])
    ax.axhline(5.0, color="tab:red", linewidth=1, linestyle="--", label="5 ms target")
    latency = next((s for s in run.sections if s.key == "latency" and s.data.get("encode_s")), None)
    if latency is not None:
        from bench.stats import median

        enc = median(latency.data["encode_s"]) * 1e3
        if not math.isnan(enc):
            ax.axhline(enc, color="grey", linewidth=1, linestyle="-.", label=f"bare encode of one question ({enc:.0f} ms)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("corpus size (vectors, 384-d)")
    ax.set_ylabel("query p50 (ms), one query at a time")
    ax.set_title("hwbot: vector search latency against corpus size")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def write_report(run: Run, out_dir: Path, *, keep_unmeasured: bool = False) -> Path:
    """Write the report; with ``keep_unmeasured``, sections of the report already there that
    this run did not measure are carried over (marked as such), and so is the plot if this run has none."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / REPORT_NAME
    carried = path.read_text(encoding="utf-8") if keep_unmeasured and path.exists() else None
    has_plot = write_plot(run, out_dir / PLOT_NAME) or (carried is not None and (out_dir / PLOT_NAME).exists())
    path.write_text(render_markdown(run, plot=PLOT_NAME if has_plot else None, carried=carried), encoding="utf-8")
    return path

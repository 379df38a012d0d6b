"""``python -m bench``: measure hwbot against its floors and write docs/benchmarks.md.

``--smoke`` runs tiny versions of every section (CI runs it as a test) and never writes
into docs/: its report goes to a temporary directory unless ``--out`` names another.
``--full`` adds the 1M-vector corpus to the scale section.

Thread counts are set before numpy, torch or FAISS load: the machines have 2 cores, so
OpenMP and MKL get 2 threads unless the environment already says otherwise.
``OPENBLAS_CORETYPE`` is left exactly as the environment has it.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
SECTIONS = ("scale", "build", "latency", "batch", "parity", "coldstart", "memory", "slack_workers")


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--smoke", action="store_true", help="tiny versions of everything (well under a minute)")
    mode.add_argument("--full", action="store_true", help="also measure a 1M-vector corpus (slow)")
    p.add_argument("--out", type=Path, default=None, help="report directory (default: docs/, or a temp dir with --smoke)")
    p.add_argument("--json", type=Path, default=None, help="also write the raw run as JSON here")
    p.add_argument("--from-json", type=Path, default=None,
                   help="measure nothing: re-render the report of a run saved with --json")
    p.add_argument("--only", default=",".join(SECTIONS), help=f"comma list of sections to run, from {','.join(SECTIONS)}")
    p.add_argument("--keep-unmeasured", action="store_true",
                   help="carry over, marked as such, the sections of the existing report that --only leaves out")
    p.add_argument("--threads", type=int, default=None,
                   help="OMP/MKL threads unless already set (default 2, the machine's cores; 1 with --smoke)")
    args = p.parse_args(argv)
    args.only = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = sorted(set(args.only) - set(SECTIONS))
    if unknown:
        p.error(f"unknown section(s): {', '.join(unknown)}")
    if args.threads is None:
        # Smoke checks structure, not speed: one thread keeps it quick on a machine shared with other work.
        args.threads = 1 if args.smoke else 2
    if args.out is None:
        args.out = Path(tempfile.mkdtemp(prefix="hwbot-bench-smoke-")) if args.smoke else DOCS
    if args.smoke and args.out.resolve() == DOCS.resolve():
        p.error("--smoke never writes docs/: its figures are not the published ones")
    return args


def _set_threads(n: int) -> None:
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, str(n))
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    _set_threads(args.threads)
    from bench.report import write_report
    from bench.results import Run

    started = time.perf_counter()
    if args.from_json is not None:
        from pydantic import ValidationError

        from common.validation import one_line_errors

        try:
            run = Run.model_validate_json(args.from_json.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            print(f"error: cannot read {args.from_json}: {exc.strerror if isinstance(exc, OSError) else exc}", file=sys.stderr)
            return 2
        except ValidationError as exc:
            print(f"error: {args.from_json} is not a run saved with --json: {one_line_errors(exc)}", file=sys.stderr)
            return 2
        if run.mode == "smoke" and args.out.resolve() == DOCS.resolve():
            print("a smoke run is never published in docs/", file=sys.stderr)
            return 2
    else:
        from bench.plan import run_all

        run = run_all(args.only, mode="smoke" if args.smoke else "full" if args.full else "default", repo=REPO)
    path = write_report(run, args.out, keep_unmeasured=args.keep_unmeasured)
    if args.json and args.from_json is None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(run.model_dump_json(indent=1), encoding="utf-8")
    print(f"wrote {path} in {time.perf_counter() - started:.0f} s")
    for t in run.targets():
        verdict = "not measured" if t.holds is None else "holds" if t.holds else "MISSED"
        print(f"  {t.name}: {t.measured} (goal {t.goal}) -> {verdict}")
    failed = [s.title for s in run.sections if s.data.get("error")]
    if failed:
        print("sections that failed: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

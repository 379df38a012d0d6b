"""The ``hwbot`` command line (also ``python -m bot``).

This module imports nothing heavy: each command imports what it needs when it runs, so
``hwbot --help``, ``hwbot recommend`` and every error path stay free of torch. Every
:class:`~common.errors.HwbotError` becomes one line on stderr and its exit code; users
never see a traceback (set ``HWBOT_DEBUG=1`` to get one).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from common.errors import EXIT_FAILURE, EXIT_USAGE, HwbotError

if TYPE_CHECKING:  # pragma: no cover
    from common.settings import HwbotSettings

__all__ = ["main", "run", "cli"]

_PATH = click.Path(path_type=Path)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="hwbot", prog_name="hwbot")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """hwbot: cited GPU-vs-TPU answers and recommendations, offline.

    Answers come from the knowledge notes, and every sentence cites its chunk.
    """
    # The environment is read once, here; every command gets this object passed down.
    from common.settings import load_settings

    ctx.obj = load_settings()


@cli.command()
@click.option("--sources", "sources", type=_PATH, default=None, help="Directory of knowledge sources.")
@click.option("--index-dir", type=_PATH, default=None, help="Where the index lives (default: $HWBOT_INDEX_DIR).")
@click.option("--rebuild", is_flag=True, help="Re-embed everything instead of reusing stored vectors.")
@click.option("--quiet-if-fresh", is_flag=True, hidden=True, help="Print nothing when the index is already fresh.")
@click.pass_obj
def index(settings: HwbotSettings, sources: Path | None, index_dir: Path | None, rebuild: bool, quiet_if_fresh: bool) -> None:
    """Build or incrementally update the index, with a progress bar."""
    from bot.commands.index import run_index

    run_index(settings, sources, index_dir, rebuild=rebuild, quiet_if_fresh=quiet_if_fresh)


@cli.command()
@click.argument("question", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the answer as one JSON object.")
@click.option("--batch", type=_PATH, default=None, help="A file with one question per line (use with --json).")
@click.pass_obj
def ask(settings: HwbotSettings, question: str | None, as_json: bool, batch: Path | None) -> None:
    """Answer QUESTION from the notes, with citations."""
    from bot.commands.ask import run_ask

    run_ask(settings, question, as_json=as_json, batch=batch)


@cli.command()
@click.option("--profile", type=_PATH, default=None, help="A WorkloadProfile JSON file; without it, run the intake.")
@click.option("--text", "text", default=None, help="Describe your situation in your own words instead.")
@click.option("--json", "as_json", is_flag=True, help="Print the recommendation as JSON.")
@click.pass_obj
def recommend(settings: HwbotSettings, profile: Path | None, text: str | None, as_json: bool) -> None:
    """Recommend GPU, TPU or GPU now, TPU later, with cited reasons."""
    if text is not None:
        from bot.extractor import prefetch_reader

        prefetch_reader(settings)  # the ONNX session loads while the rest is imported
    from bot.commands.recommend import run_recommend, run_recommend_text

    if text is not None:
        if profile is not None:
            raise click.UsageError("give either --profile FILE or --text, not both")
        run_recommend_text(text, as_json=as_json, settings=settings)
        return
    run_recommend(settings, profile, as_json=as_json)


@cli.command()
@click.pass_obj
def repl(settings: HwbotSettings) -> None:
    """The chat loop: ask questions; /recommend, /sources, /help, /quit."""
    from bot.repl import run_repl

    run_repl(settings)


@cli.command()
@click.argument("file", type=_PATH)
@click.option("--out", type=_PATH, default=None, help="Write a markdown FAQ page here.")
@click.option("--json", "as_json", is_flag=True, help="Write one JSON object per question to stdout.")
@click.pass_obj
def faq(settings: HwbotSettings, file: Path, out: Path | None, as_json: bool) -> None:
    """Answer every question found in a docs FILE."""
    from bot.commands.faq import run_faq

    run_faq(settings, file, out=out, as_json=as_json)


@cli.command()
@click.option("--http", "http", is_flag=True, help="Serve HTTP (/slack/events) even if SLACK_APP_TOKEN is set.")
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP bind address.")
@click.option("--port", default=3000, show_default=True, type=int, help="HTTP port.")
@click.option("--workers", default=1, show_default=True, type=int, help="HTTP worker processes (they share the state).")
@click.pass_obj
def slack(settings: HwbotSettings, http: bool, host: str, port: int, workers: int) -> None:
    """Run the Slack app (Socket Mode when SLACK_APP_TOKEN is set, else HTTP under gunicorn)."""
    from bot.slack.run import run_slack

    run_slack(settings, http=http, host=host, port=port, workers=workers)


@cli.command()
@click.option("--since", default=None, help="Only feedback from this date on (YYYY-MM-DD).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of markdown.")
@click.pass_obj
def feedback(settings: HwbotSettings, since: str | None, as_json: bool) -> None:
    """Declined and down-voted questions, with their reasons: the FAQ's gaps."""
    from bot.commands.feedback import run_feedback

    run_feedback(settings, since=since, as_json=as_json)


@cli.command(name="eval")
@click.option("--json", "as_json", is_flag=True, help="Print metrics as JSON.")
@click.option("--check", is_flag=True, help="Exit 1 if hybrid misses its floors.")
@click.option("--calibrate", is_flag=True, help="Grid-search the abstention thresholds and print them.")
@click.option("--fresh", type=_PATH, default=None, help="Score a fresh batch (questions or messages) instead of the dev set.")
@click.option("--extractor", type=click.Choice(["rules", "heads", "combined"]), default="combined", show_default=True,
              help="With --fresh messages: read them with the rules only, the learned heads only, or both.")
@click.option("--extractor-split", is_flag=True,
              help="The extractor ablation (every variant) on the labelled clauses' validation split.")
@click.option("--lobo", type=_PATH, multiple=True,
              help="Leave-one-batch-out over these message batches (repeat): the extractor retrained without each, scored on it.")
@click.pass_obj
def eval_(settings: HwbotSettings, as_json: bool, check: bool, calibrate: bool, fresh: Path | None,
          extractor: str, extractor_split: bool, lobo: tuple[Path, ...]) -> None:
    """Measure retrieval and abstention on the labelled dev set, or score one fresh batch."""
    from bot.commands.eval import run_eval, run_extractor_split, run_fresh, run_lobo

    if lobo:
        run_lobo(settings, list(lobo), as_json=as_json)
        return
    if extractor_split:
        run_extractor_split(as_json=as_json, settings=settings)
        return
    if fresh is not None:
        run_fresh(settings, fresh, as_json=as_json, extractor=extractor)  # type: ignore[arg-type]
        return
    run_eval(settings, as_json=as_json, check=check, calibrate=calibrate)


@cli.command(name="fit-leads")
@click.pass_obj
def fit_leads(settings: HwbotSettings) -> None:
    """Fit the lead map and refit the lead model (writes knowledge/qa/data/lead_map.npy and lead_model.toml)."""
    from bot.commands.eval import run_fit_leads

    run_fit_leads(settings)


@cli.command(name="fit-gate")
@click.argument("batches", nargs=-1, type=_PATH)
@click.option("--lobo", is_flag=True, help="Leave each batch out in turn and score it before/after, instead of writing the gate.")
@click.pass_obj
def fit_gate(settings: HwbotSettings, batches: tuple[Path, ...], lobo: bool) -> None:
    """Fit the out-of-domain gate on labelled question batches (writes knowledge/qa/data/domain_gate/)."""
    from bot.commands.gate import run_fit_gate

    run_fit_gate(settings, list(batches), lobo=lobo)


@cli.command(name="fit-asks")
@click.option("--lobo", is_flag=True, help="Leave each measured batch out in turn and score it before/after, instead of writing the model.")
@click.pass_obj
def fit_asks(settings: HwbotSettings, lobo: bool) -> None:
    """Fit the ask-type model on the measured question batches (writes knowledge/qa/data/ask_model/)."""
    from bot.commands.asks import run_fit_asks

    run_fit_asks(settings, lobo=lobo)


@cli.command(name="train-extractor")
@click.option("--check", is_flag=True, help="Retrain in a scratch dir and compare with the committed files; write nothing.")
@click.pass_obj
def train_extractor(settings: HwbotSettings, check: bool) -> None:
    """Retrain the learned extractor's heads from the labelled clauses (writes knowledge/recommend/data/extractor/)."""
    from bot.commands.eval import run_train_extractor

    run_train_extractor(settings, check=check)


def _command_name(argv: list[str]) -> str:
    for arg in argv:
        if not arg.startswith("-"):
            return arg
    return ""


def run() -> NoReturn:
    """The ``hwbot`` console script and ``python -m bot``: :func:`main`, then a prompt exit.

    Once a one-shot command's output is flushed and its exit handlers have run, nothing is
    left to do but free memory; the interpreter's own teardown (collecting every module and
    object, the ONNX session's and FAISS's destructors) took ~0.15 s of a ~1.1 s cold
    ``hwbot ask`` here. So the process ends with ``os._exit`` after flushing the standard
    streams and running the ``atexit`` handlers (logging, temporary directories, weakref
    finalizers), unless a non-daemon thread is still working, which the normal exit waits
    for, or a profiler or tracer is attached, whose report is written after the script returns.
    :func:`main` itself exits normally, for callers that embed it.
    """
    code: int = 0
    try:
        main()
    except SystemExit as exc:
        code = _exit_code(exc.code)
    _prompt_exit(code)


def _exit_code(value: object) -> int:
    if value is None:
        return 0
    if isinstance(value, int):
        return value
    print(value, file=sys.stderr)  # sys.exit("message") prints it and exits 1
    return 1


def _prompt_exit(code: int) -> NoReturn:
    import atexit
    import threading

    try:
        sys.stdout.flush()
    except (BrokenPipeError, ValueError):  # the reader left, or stdout was closed: nothing to flush
        pass
    try:
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):
        pass
    main_thread = threading.main_thread()
    if any(t is not main_thread and t.is_alive() and not t.daemon for t in threading.enumerate()):
        sys.exit(code)  # let the interpreter wait for that work, as it always does
    if sys.getprofile() is not None or sys.gettrace() is not None:
        sys.exit(code)  # `python -m cProfile -m bot ...`, coverage: they write their report after this returns
    atexit._run_exitfuncs()
    os._exit(code)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run click, turn known errors into one line plus an exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["ask"] and not {"-h", "--help"} & set(args):
        # A cold ask is bound by loading the ONNX session (~0.2 s, GIL released): start it from
        # where the settings will point before click builds them (pydantic-settings, ~0.1 s).
        from common.locations import index_dir_hint
        from knowledge.index import prefetch_encoder

        prefetch_encoder(index_dir_hint())
    try:
        cli.main(args=args, prog_name="hwbot", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except HwbotError as exc:
        cmd = _command_name(args)
        hint = exc.hint or (f"Try 'hwbot {cmd} --help'" if exc.exit_code == EXIT_USAGE and cmd else None)
        msg = exc.message + (f" ({hint})" if hint else "")
        click.echo(f"Error: {msg}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("Interrupted.", err=True)
        sys.exit(130)
    except BrokenPipeError:
        # e.g. `hwbot ask ... | head`: the reader left; that is not an error worth a trace.
        try:
            sys.stdout = open(os.devnull, "w")
        finally:
            sys.exit(0)
    except Exception as exc:  # last resort: never a traceback for users
        if os.environ.get("HWBOT_DEBUG"):
            raise
        line = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
        click.echo(f"Error: internal error: {line} (set HWBOT_DEBUG=1 for a traceback)", err=True)
        sys.exit(EXIT_FAILURE)

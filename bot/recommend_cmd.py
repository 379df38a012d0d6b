"""``hwbot recommend``: from a profile file, or from the intake run in the terminal.

With ``--profile FILE`` the file is validated (any problem is one line and exit 2) and
scored; ``--json`` prints exactly the contract object. Without it the intake runs on
stdin: interactively with resume (the dialog is stored under the ``terminal`` key, so
closing the terminal mid-way loses nothing), or, when stdin is piped, as a one-shot
dialog that never resumes or leaves state behind.

:func:`run_intake_session` is the reusable loop; the REPL's ``/recommend`` calls it with
its own line reader and writer. Nothing here imports torch.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Literal, TextIO

from bot.recommend_view import render_text
from indexer.errors import EXIT_FAILURE, InputError
from knowledge.models import Recommendation
from knowledge.profile import load_profile
from knowledge.scoring import recommend

if TYPE_CHECKING:  # the intake modules load only when a dialog runs, not for --profile
    from bot.intake import IntakeState, Turn
    from bot.intake_store import IntakeStore
    from bot.questions import Questionnaire

__all__ = ["run_recommend", "run_intake_session", "SessionResult", "TERMINAL_KEY", "emit"]

TERMINAL_KEY = "terminal"
PROMPT = "> "


@dataclass(frozen=True)
class SessionResult:
    """How an intake session ended: ``done`` (with a recommendation), ``cancelled`` or ``eof``."""

    outcome: Literal["done", "cancelled", "eof"]
    recommendation: Recommendation | None
    answered: int
    total: int


def intake_session(
    read_line: Callable[[str], str | None],
    write: Callable[[str], None],
    key: str = TERMINAL_KEY,
    *,
    store: IntakeStore | None = None,
    resume: bool = True,
    questions: Questionnaire | None = None,
) -> SessionResult:
    """Run the intake to the end, saving the state after every answer.

    ``read_line(prompt)`` returns a line, or None at end of input. With ``resume`` a
    dialog left unfinished under ``key`` continues where it stopped, and end of input
    keeps it for next time; without ``resume`` the dialog starts fresh and leaves no row.
    """
    from bot.intake import advance, start
    from bot.intake import resume as resume_turn
    from bot.intake_store import IntakeStore
    from bot.questions import load_questions

    q = questions or load_questions()
    store = store or IntakeStore()
    saved = store.load(key) if resume else None
    if saved is not None and saved.status == "asking" and saved.answers:
        turn = resume_turn(saved, q)
        write(f"Resuming your intake at question {saved.position + 1}/{len(q.questions)} ('restart' to start over).")
    else:
        turn = start(q)
        write(f"{len(q.questions)} short questions. Type 'skip' if you are not sure; 'cancel' to stop.")
    store.save(key, turn.state)

    while True:
        write(turn.text)
        if turn.finished:
            store.delete(key)
            rec = recommend(turn.state.profile())
            return SessionResult("done", rec, len(turn.state.answers), len(q.questions))
        if turn.cancelled:
            store.delete(key)
            return SessionResult("cancelled", None, len(turn.state.answers), len(q.questions))
        line = read_line(PROMPT)
        if line is None:
            if resume:
                write("Intake paused; run it again to continue where you left off.")
            else:
                store.delete(key)
            return SessionResult("eof", None, len(turn.state.answers), len(q.questions))
        box: list[Turn] = []

        def step(current: IntakeState | None, line: str = line) -> IntakeState:
            box.append(advance(current or turn.state, line, q))
            return box[0].state

        store.update(key, step)
        turn = box[0]


def run_intake_session(
    read_line: Callable[[str], str | None],
    write: Callable[[str], None],
    key: str = TERMINAL_KEY,
    *,
    store: IntakeStore | None = None,
    resume: bool = True,
) -> Recommendation | None:
    """The intake for any line-based front end: the recommendation, or None if cancelled/ended.

    Render the result with :func:`bot.recommend_view.render_text`.
    """
    return intake_session(read_line, write, key, store=store, resume=resume).recommendation


def emit(rec: Recommendation, as_json: bool, out: TextIO | None = None) -> None:
    """Print a recommendation as the contract JSON object or as text."""
    out = out or sys.stdout
    if as_json:
        out.write(json.dumps(rec.to_contract(), ensure_ascii=False) + "\n")
    else:
        out.write(render_text(rec) + "\n")
    out.flush()


def _reader(stream: TextIO, interactive: bool) -> Callable[[str], str | None]:
    """A line reader for the terminal; prompts go to ``stream`` so stdout can stay pure JSON."""

    def read(prompt: str) -> str | None:
        if interactive and stream is sys.stdout:
            try:
                return input(prompt)
            except EOFError:  # Ctrl-D: end the prompt line so the next message starts clean
                stream.write("\n")
                return None
        stream.write(prompt)
        stream.flush()
        line = sys.stdin.readline()
        if not interactive:
            stream.write("\n" if not line else line if line.endswith("\n") else line + "\n")
        return line.rstrip("\r\n") if line else None

    return read


def run_recommend(profile: Path | None, as_json: bool = False) -> None:
    """The ``recommend`` command."""
    if profile is not None:
        emit(recommend(load_profile(profile)), as_json)
        return
    interactive = sys.stdin.isatty()
    talk = sys.stderr if as_json else sys.stdout

    def write(text: str) -> None:
        talk.write(text + "\n")
        talk.flush()

    key = TERMINAL_KEY if interactive else f"pipe-{os.getpid()}"
    result = intake_session(_reader(talk, interactive), write, key, resume=interactive)
    if result.outcome == "done" and result.recommendation is not None:
        if not as_json:
            write("")
        emit(result.recommendation, as_json)
        return
    if result.outcome == "eof" and not interactive:
        raise InputError(
            f"input ended after {result.answered} of {result.total} intake answers; "
            "give one answer per line, or use --profile FILE"
        )
    sys.exit(EXIT_FAILURE)

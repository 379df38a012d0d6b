"""The intake session loop that every line-based front end shares (CLI, REPL).

It owns the order of operations: resume or start, save after every answer, delete the
row when the dialog ends, score the finished profile. Front ends only supply a line
reader and a writer, so the terminal, a pipe and the REPL behave the same.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from knowledge.recommend.recommendation import Recommendation
from knowledge.recommend.recommender import recommend

if TYPE_CHECKING:
    from bot.intake.dialog import IntakeState, Turn
    from bot.intake.persistence import IntakeStore
    from bot.intake.questions import Questionnaire

__all__ = ["intake_session", "run_intake_session", "SessionResult", "TERMINAL_KEY"]

#: The store key of the terminal's dialog (one per user and state dir).
TERMINAL_KEY = "terminal"
PROMPT = "> "


@dataclass(frozen=True)
class SessionResult:
    """How an intake session ended: ``done`` (with a recommendation), ``cancelled`` or ``eof``."""

    outcome: Literal["done", "cancelled", "eof"]
    recommendation: Recommendation | None
    #: questions answered (skips included)
    answered: int
    #: the most questions the intake could ask
    total: int


def intake_session(
    read_line: Callable[[str], str | None],
    write: Callable[[str], None],
    key: str = TERMINAL_KEY,
    *,
    store: IntakeStore,
    resume: bool = True,
    questions: Questionnaire | None = None,
    given: dict[str, tuple[str, str]] | None = None,
    implied: dict[str, tuple[str, str]] | None = None,
) -> SessionResult:
    """Run the intake to the end, saving the state after every answer.

    ``read_line(prompt)`` returns a line, or None at end of input. With ``resume`` a
    dialog left unfinished under ``key`` continues where it stopped, and end of input
    keeps it for next time; without ``resume`` the dialog starts fresh and leaves no row.
    ``given`` and ``implied`` (field -> (value, words or reason)) are what the conversation
    established before: a fresh dialog starts from them and asks only what remains.
    """
    from bot.intake.dialog import advance, start
    from bot.intake.dialog import resume as resume_turn
    from bot.intake.questions import load_questionnaire

    q = questions or load_questionnaire()
    saved = store.load(key) if resume else None
    if saved is not None and saved.status == "asking" and saved.answers:
        turn = resume_turn(saved, q)
        write(f"Resuming your intake: {len(saved.asked)} answered so far ('restart' to start over).")
    else:
        turn = start(q, given=given, implied=implied)
        if not (given or implied):  # a seeded start says what it understood first, then asks
            write(
                f"At most {len(q.questions)} short questions: I stop as soon as your answers settle the verdict. "
                "Type 'skip' if you are not sure; 'cancel' to stop."
            )
    store.save(key, turn.state)

    while True:
        write(turn.text)
        if turn.finished:
            store.delete(key)
            rec = recommend(turn.state.profile())
            return SessionResult("done", rec, len(turn.state.asked), len(q.questions))
        if turn.cancelled:
            store.delete(key)
            return SessionResult("cancelled", None, len(turn.state.asked), len(q.questions))
        line = read_line(PROMPT)
        if line is None:
            if resume:
                write("Intake paused; run it again to continue where you left off.")
            else:
                store.delete(key)
            return SessionResult("eof", None, len(turn.state.asked), len(q.questions))
        box: list[Turn] = []

        def step(current: IntakeState | None, line: str = line, box: list[Turn] = box, now: Turn = turn) -> IntakeState:
            box.append(advance(current or now.state, line, q))
            return box[0].state

        store.update(key, step)
        turn = box[0]


def run_intake_session(
    read_line: Callable[[str], str | None],
    write: Callable[[str], None],
    key: str = TERMINAL_KEY,
    *,
    store: "IntakeStore",
    resume: bool = True,
    given: dict[str, tuple[str, str]] | None = None,
    implied: dict[str, tuple[str, str]] | None = None,
) -> Recommendation | None:
    """The intake for any line-based front end: the recommendation, or None if cancelled/ended.

    Render the result with :func:`bot.plaintext.render_recommendation_text`.
    """
    return intake_session(read_line, write, key, store=store, resume=resume, given=given, implied=implied).recommendation

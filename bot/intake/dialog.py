"""The intake dialog: an ordered state machine over the questions, for any front end.

Front ends only move text: they show :attr:`Turn.text`, read a line, and call
:func:`advance`. The state is a small pydantic model that round-trips through JSON, so
:mod:`bot.intake.store` can persist it between messages (a Slack thread, a terminal
that was closed) and a dialog resumes exactly where it stopped.

Rules of the dialog:

* answers are accepted by option number, value, label or synonym (``1``, ``pytorch``,
  ``torch``, ``PyTorch 2``);
* ``skip`` / ``not sure`` records ``unknown``; ``back`` returns to the previous
  question, ``restart`` clears everything, ``cancel`` ends the dialog, ``help`` explains
  the current question;
* anything else re-asks the same question with its options. No input can raise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from bot.intake.questions import Question, Questionnaire, load_questionnaire
from knowledge.recommend.profile import UNKNOWN, WorkloadProfile, parse_profile

__all__ = ["IntakeState", "Turn", "start", "resume", "advance", "render_question", "summary", "MAX_ANSWER_CHARS"]

#: Longer input is not an answer to a multiple-choice question; it is cut before matching
#: so a pasted essay cannot slow the matcher or bloat the stored state.
MAX_ANSWER_CHARS = 200

Status = Literal["asking", "done", "cancelled"]


class IntakeState(BaseModel):
    """Where a dialog stands. JSON-serializable; stored per conversation key."""

    position: int = Field(default=0, ge=0)
    answers: dict[str, str] = Field(default_factory=dict)
    status: Status = "asking"
    #: How many invalid answers in a row for the current question (front ends may offer help).
    misses: int = Field(default=0, ge=0)

    def profile(self) -> WorkloadProfile:
        """The answers as a validated profile (unanswered fields are unknown)."""
        return parse_profile(dict(self.answers), origin="intake")


@dataclass(frozen=True)
class Turn:
    """The result of one step: the new state and what to show the person."""

    state: IntakeState
    text: str
    #: "answered", "skipped", "back", "restart", "cancel", "help", "invalid", "start", "done"
    event: str

    @property
    def finished(self) -> bool:
        return self.state.status == "done"

    @property
    def cancelled(self) -> bool:
        return self.state.status == "cancelled"


def render_question(q: Questionnaire, position: int, current: str | None = None) -> str:
    """The question, its numbered options and how to answer, as plain text."""
    question = q.questions[position]
    lines = [f"Question {position + 1}/{len(q.questions)}: {question.prompt}"]
    lines += [f"  {i}. {option.label}" for i, option in enumerate(question.options, start=1)]
    if current is not None:
        lines.append(f"  (current answer: {question.label_of(current)})")
    lines.append(
        f"  Answer with a number (1-{len(question.options)}) or a name; "
        "'skip' if not sure, 'back', 'restart', 'cancel', 'help'."
    )
    return "\n".join(lines)


def summary(q: Questionnaire, state: IntakeState) -> str:
    """One line per question with the recorded answer, for the end of the dialog."""
    return "\n".join(
        f"  {question.field}: {question.label_of(state.answers.get(question.field, UNKNOWN))}"
        for question in q.questions
    )


def start(q: Questionnaire | None = None) -> Turn:
    """A fresh dialog, positioned on the first question."""
    q = q or load_questionnaire()
    state = IntakeState()
    return Turn(state=state, text=render_question(q, 0), event="start")


def resume(state: IntakeState, q: Questionnaire | None = None) -> Turn:
    """Re-show where a stored dialog stands (its current question), changing nothing."""
    q = q or load_questionnaire()
    if state.status != "asking":
        return Turn(state=state, text=f"This intake is {state.status}; type 'restart' to begin again.", event="invalid")
    return _ask(q, state.model_copy(update={"position": min(state.position, len(q.questions))}), "", "start")


def _ask(q: Questionnaire, state: IntakeState, lead: str, event: str) -> Turn:
    """Show ``lead`` then the current question; past the last question, finish the dialog."""
    if state.position >= len(q.questions):
        done = state.model_copy(update={"status": "done", "position": len(q.questions)})
        text = "\n".join(part for part in (lead, "All questions answered:", summary(q, done)) if part)
        return Turn(state=done, text=text, event="done")
    current = state.answers.get(q.questions[state.position].field)
    body = render_question(q, state.position, current)
    return Turn(state=state, text=f"{lead}\n{body}" if lead else body, event=event)


def _record(q: Questionnaire, state: IntakeState, question: Question, value: str, event: str) -> Turn:
    """Store an answer (or ``unknown``) and move to the next question."""
    answers = {**state.answers, question.field: value}
    nxt = state.model_copy(update={"answers": answers, "position": state.position + 1, "misses": 0})
    return _ask(q, nxt, f"{question.field}: {question.label_of(value)}", event)


def advance(state: IntakeState, text: str | None, q: Questionnaire | None = None) -> Turn:
    """One step of the dialog. Never raises for any ``text``; ``None`` counts as empty."""
    q = q or load_questionnaire()
    if state.status != "asking":
        if q.commands.command_of((text or "")[:MAX_ANSWER_CHARS]) == "restart":
            fresh = start(q)
            return Turn(state=fresh.state, text=f"Starting over.\n{fresh.text}", event="restart")
        return Turn(state=state, text=f"This intake is {state.status}; type 'restart' to begin again.", event="invalid")
    position = min(state.position, len(q.questions) - 1)
    state = state.model_copy(update={"position": position})
    question = q.questions[position]
    raw = (text or "")[:MAX_ANSWER_CHARS]
    command = q.commands.command_of(raw)

    if command == "cancel":
        return Turn(state=state.model_copy(update={"status": "cancelled"}), text="Intake cancelled.", event="cancel")
    if command == "restart":
        fresh = start(q)
        return Turn(state=fresh.state, text=f"Starting over.\n{fresh.text}", event="restart")
    if command == "back":
        if position == 0:
            return _ask(q, state, "Already at the first question.", "back")
        return _ask(q, state.model_copy(update={"position": position - 1, "misses": 0}), "", "back")
    if command == "help":
        return _ask(q, state, f"{question.help} {q.unknown.help}", "help")
    if command == "skip":
        return _record(q, state, question, UNKNOWN, "skipped")

    value = question.match(raw)
    if value is None:
        shown = " ".join(raw.split())[:60]
        lead = (
            f"Sorry, {shown!r} is not one of the options for {question.field}."
            if shown
            else "Please choose one of the options."
        )
        return _ask(q, state.model_copy(update={"misses": state.misses + 1}), lead, "invalid")
    return _record(q, state, question, value, "answered")

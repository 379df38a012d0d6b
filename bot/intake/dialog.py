"""The intake dialog: an adaptive state machine over the questions, for any front end.

Front ends only move text: they show :attr:`Turn.text`, read a line, and call
:func:`advance`. The state (:class:`~bot.intake.state.IntakeState`) round-trips through
JSON, so :mod:`bot.intake.persistence` can persist it between messages and a dialog resumes
exactly where it stopped.

What is asked, and when to stop, is the engine's decision
(:mod:`knowledge.recommend.questioning`): the gate first, then the question whose answer
says most about the verdict; once no answer left can change the verdict the dialog says
so and offers the rest ("answer them anyway?"). Rules of the dialog:

* answers are accepted by option number, value, label or synonym (``1``, ``pytorch``,
  ``torch``, ``PyTorch 2``); anything else is read by the extractor
  (:mod:`bot.intake.understand`): what it understands is echoed, what it finds ambiguous
  is asked (yes/no), and other fields stated in passing are kept when unambiguous;
* ``skip`` / ``not sure`` records ``unknown``; ``back`` returns to the previous
  question, ``restart`` clears everything, ``cancel`` ends the dialog, ``help`` explains;
* what is not understood at all gets a one-line hint, the whole question only after
  repeated misses. No input can raise.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.intake.questions import Question, Questionnaire, load_questionnaire
from bot.intake.state import IntakeState
from bot.intake.understand import read_answer
from knowledge.recommend.decision import Engine
from knowledge.recommend.profile import UNKNOWN, is_answer
from knowledge.recommend.questioning import gate_fields, next_field, settled_verdict
from knowledge.recommend.recommendation import VERDICT_LABELS
from knowledge.recommend.recommender import shipped_engine

__all__ = ["IntakeState", "Turn", "start", "resume", "advance", "render_question", "summary", "MAX_ANSWER_CHARS"]

#: Longer input is cut before matching so a pasted essay cannot slow the matcher or bloat
#: the stored state.
MAX_ANSWER_CHARS = 200
#: After this many unusable answers in a row the whole question is shown again, not a hint.
FULL_REPEAT_AFTER = 3


@dataclass(frozen=True)
class Turn:
    """The result of one step: the new state and what to show the person."""

    state: IntakeState
    text: str
    #: start, answered, skipped, noted, confirm, offer, back, restart, cancel, help, invalid, done
    event: str

    @property
    def finished(self) -> bool:
        return self.state.status == "done"

    @property
    def cancelled(self) -> bool:
        return self.state.status == "cancelled"


@dataclass(frozen=True)
class _Ctx:
    q: Questionnaire
    engine: Engine


def _join(*parts: str) -> str:
    return "\n".join(p for p in parts if p)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _short(label: str) -> str:
    """The head of an option label ("Critical: custom CUDA ..." -> "Critical"), for hints."""
    return label.split(":")[0].split(",")[0].split(" (")[0].strip()


def render_question(q: Questionnaire, state: IntakeState) -> str:
    """The current question, its numbered options and how to answer, as plain text.

    The number is honest about adaptivity: this is question n, and at most m will be asked.
    """
    assert state.current is not None
    question = q.by_field(state.current)
    n = len(state.asked) + 1
    most = len(state.asked) + len(state.remaining())
    lines = [f"Question {n} ({'the last one' if n >= most else f'at most {most}'}): {question.prompt}"]
    lines += [f"  {i}. {option.label}" for i, option in enumerate(question.options, start=1)]
    if state.current in state.answers:
        lines.append(f"  (current answer: {question.label_of(state.answers[state.current])})")
    lines.append(
        f"  Answer with a number (1-{len(question.options)}), a name or in your own words; "
        "'skip' if not sure, 'back', 'restart', 'cancel', 'help'."
    )
    return "\n".join(lines)


def _hint(question: Question) -> str:
    """One line to re-ask a question without reprinting it whole."""
    names = ", ".join(f"{i} {_short(o.label)}" for i, o in enumerate(question.options, start=1))
    return f"{question.prompt} {names}; 'skip' if not sure, 'help' for more."


def summary(q: Questionnaire, state: IntakeState) -> str:
    """The answers that count, in the order they were given, and what was never asked."""
    lines = [f"  {f}: {q.by_field(f).label_of(state.answers[f])}" for f in state.asked]
    lines += [
        f"  {f}: {q.by_field(f).label_of(state.answers[f])} (from your answer about {src})"
        for f, src in state.volunteered.items()
    ]
    lines += [f"  {f}: {q.by_field(f).label_of(state.answers[f])} (from what you said: \"{w}\")"
              for f, w in state.given.items()]
    lines += [f"  {f}: {q.by_field(f).label_of(state.answers[f])} (implied: {why})" for f, why in state.implied.items()]
    if state.remaining():
        lines.append(f"  not asked: {', '.join(state.remaining())}")
    return "\n".join(lines)


def _offer_text(ctx: _Ctx, state: IntakeState) -> str:
    left = len(state.remaining())
    them = "it" if left == 1 else "them"
    settled = settled_verdict(ctx.engine, state.known())
    if settled is not None:
        return (f"Your answers already settle it: {VERDICT_LABELS[settled]}. "
                f"{_plural(left, 'question')} skipped; answer {them} anyway? (yes/no)")
    now = VERDICT_LABELS[ctx.engine.decide(state.known()).kind]
    return (f"None of the {_plural(left, 'question')} left can change the verdict on its own; "
            f"what you skipped keeps it open ({now} for now). Answer {them} anyway? (yes/no)")


def _confirm_text(ctx: _Ctx, state: IntakeState) -> str:
    assert state.confirm is not None
    c = state.confirm
    if c.yes_no:
        return f'You wrote "{c.evidence}". {c.question} (yes/no)'
    return f"{c.question} {_hint(ctx.q.by_field(c.field))}"


def _on_screen(ctx: _Ctx, state: IntakeState) -> str:
    """What the person is being asked right now."""
    if state.confirm is not None:
        return _confirm_text(ctx, state)
    if state.offered:
        return _offer_text(ctx, state)
    return render_question(ctx.q, state)


def _finish(ctx: _Ctx, state: IntakeState, lead: str) -> Turn:
    done = state.model_copy(update={"status": "done", "current": None, "offered": False, "confirm": None, "misses": 0})
    head = f"Done after {_plural(len(done.asked), 'question')}. Your answers:"
    return Turn(state=done, text=_join(lead, head, summary(ctx.q, done)), event="done")


def _proceed(ctx: _Ctx, state: IntakeState, lead: str, event: str) -> Turn:
    """Move to the next question the engine picks; offer the rest once none can matter."""
    state = state.model_copy(update={"current": None, "confirm": None, "offered": False, "misses": 0})
    field = next_field(ctx.engine, state.known(), state.settled_fields(), exhaustive=state.everything)
    if field is not None:
        nxt = state.model_copy(update={"current": field})
        return Turn(state=nxt, text=_join(lead, render_question(ctx.q, nxt)), event=event)
    if state.remaining() and not state.everything:
        offered = state.model_copy(update={"offered": True})
        return Turn(state=offered, text=_join(lead, _offer_text(ctx, offered)), event="offer")
    return _finish(ctx, state, lead)


def _context(q: Questionnaire | None, engine: Engine | None) -> _Ctx:
    return _Ctx(q or load_questionnaire(), engine or shipped_engine())


def start(
    q: Questionnaire | None = None,
    engine: Engine | None = None,
    *,
    given: dict[str, tuple[str, str]] | None = None,
    implied: dict[str, tuple[str, str]] | None = None,
) -> Turn:
    """A fresh dialog, on the gate question; or, seeded with what the conversation already
    established (``given``: field -> (value, words); ``implied``: field -> (value, because)),
    on the first question that remains, after saying what was understood."""
    ctx = _context(q, engine)
    # "we never measured the input pipeline" answered that question; any other unknown is no answer
    given = {f: g for f, g in (given or {}).items() if is_answer(f, g[0])}
    implied = {f: i for f, i in (implied or {}).items() if f not in given}
    if not given and not implied:
        return _proceed(ctx, IntakeState(), "", "start")
    state = IntakeState(answers={f: v for f, (v, _) in {**given, **implied}.items()},
                        given={f: w for f, (_, w) in given.items()}, implied={f: why for f, (_, why) in implied.items()})
    label = ctx.q.by_field
    said = [f'{f} = {label(f).label_of(v)} ("{w}")' for f, (v, w) in given.items()]
    lead = "From what you said: " + (", ".join(said) or "nothing stated")
    if implied:
        lead += "; implied: " + ", ".join(f"{f} = {label(f).label_of(v)} ({why})" for f, (v, why) in implied.items())
    left = len(state.remaining())
    lead += (f". I ask only what remains (at most {_plural(left, 'question')}) and stop once the verdict is settled; "
             "'skip' if not sure, 'cancel' to stop, or correct any of it in your answer (\"actually we use PyTorch\").")
    return _proceed(ctx, state, lead, "start")


def resume(state: IntakeState, q: Questionnaire | None = None, engine: Engine | None = None) -> Turn:
    """Re-show where a stored dialog stands, changing nothing (a migrated state gets its next question)."""
    ctx = _context(q, engine)
    if state.status != "asking":
        return Turn(state=state, text=f"This intake is {state.status}; type 'restart' to begin again.", event="invalid")
    if state.current is None and not state.offered:
        return _proceed(ctx, state, "", "start")
    return Turn(state=state, text=_on_screen(ctx, state), event="start")


def _record(ctx: _Ctx, state: IntakeState, question: Question, value: str, event: str, lead: str = "") -> Turn:
    """Store an answer (or ``unknown``) to the current question and move on."""
    answers = {**state.answers, question.field: value}
    nxt = state.model_copy(update={"answers": answers, "asked": [*state.asked, question.field]})
    return _proceed(ctx, nxt, lead or f"{question.field}: {question.label_of(value)}", event)


def _back(ctx: _Ctx, state: IntakeState) -> Turn:
    """Return to the last question asked; what its answer stated in passing is dropped too."""
    if not state.asked:
        here = state.model_copy(update={"confirm": None, "misses": 0})
        return Turn(state=here, text=_join("Already at the first question.", _on_screen(ctx, here)), event="back")
    last = state.asked[-1]
    back = state.model_copy(update={
        "asked": state.asked[:-1],
        "current": last,
        "volunteered": {f: src for f, src in state.volunteered.items() if src != last},
        "offered": False,
        "confirm": None,
        "misses": 0,
    })
    return Turn(state=back, text=render_question(ctx.q, back), event="back")


def _on_offer(ctx: _Ctx, state: IntakeState, raw: str, command: str | None) -> Turn:
    if command == "help":
        why = ("These answers cannot change the verdict, but they sharpen the rest of the "
               "recommendation: its reasons, its to-do list and what would change it.")
        return Turn(state=state, text=_join(why, _offer_text(ctx, state)), event="help")
    reply = False if command == "skip" else ctx.q.replies.reply_of(raw)
    if reply is True:
        return _proceed(ctx, state.model_copy(update={"everything": True}), "", "answered")
    if reply is False:
        return _finish(ctx, state, "")
    again = state.model_copy(update={"misses": state.misses + 1})
    return Turn(state=again, text=_join("Please answer yes or no.", _offer_text(ctx, again)), event="invalid")


def _free_text(ctx: _Ctx, state: IntakeState, question: Question, raw: str) -> Turn:
    """An answer that is not an option: read it, echo it, confirm it, or re-ask briefly."""
    field = question.field
    # fields known only from before the intake may be corrected by what is said now
    reading = read_answer(raw, field, {*state.asked, *state.volunteered, field})
    noted = ""
    if reading.others:
        state = state.model_copy(update={
            "answers": {**state.answers, **{f: v for f, (v, _) in reading.others.items()}},
            "volunteered": {**state.volunteered, **{f: field for f in reading.others}},
            "given": {f: w for f, w in state.given.items() if f not in reading.others},
            # a corrected premise withdraws what it implied: those questions are asked instead
            "implied": {} if set(reading.others) & set(state.given) else
            {f: w for f, w in state.implied.items() if f not in reading.others},
        })
        noted = "also noted: " + "; ".join(
            f'{f} = {ctx.q.by_field(f).label_of(v)} ("{ev}")' for f, (v, ev) in reading.others.items()
        )
    if reading.value is not None:
        understood = f"understood: {reading.evidence} -> {question.label_of(reading.value)}"
        return _record(ctx, state, question, reading.value, "answered", _join(understood, noted))
    if reading.confirm is not None:
        pending = state.model_copy(update={"confirm": reading.confirm, "misses": 0})
        return Turn(state=pending, text=_join(noted, _confirm_text(ctx, pending)), event="confirm")
    if reading.others:
        still = (state.everything or field in gate_fields(ctx.engine)
                 or field in ctx.engine.question_ranking(state.known()))
        if not still:  # what was stated in passing made this question moot
            return _proceed(ctx, state, noted, "noted")
        kept = state.model_copy(update={"misses": 0})
        return Turn(state=kept, text=_join(noted, f"And this question: {_hint(question)}"), event="noted")
    misses = state.misses + 1
    shown = " ".join(raw.split())[:60]
    lead = f"Sorry, I did not understand {shown!r}." if shown else "Please choose one of the options."
    again = state.model_copy(update={"misses": misses})
    body = render_question(ctx.q, again) if misses % FULL_REPEAT_AFTER == 0 else _hint(question)
    return Turn(state=again, text=_join(lead, body), event="invalid")


def _on_confirm(ctx: _Ctx, state: IntakeState, question: Question, raw: str) -> Turn | None:
    """A reply to a pending confirmation, or None when the text is a new answer instead."""
    assert state.confirm is not None
    c = state.confirm
    reply = ctx.q.replies.reply_of(raw)
    if reply is True and c.yes_no:
        understood = f"understood: {c.evidence} -> {question.label_of(c.value)}"
        return _record(ctx, state, question, c.value, "answered", understood)
    if reply is True:
        return Turn(state=state, text=_join("Which one?", _confirm_text(ctx, state)), event="invalid")
    if reply is False:
        cleared = state.model_copy(update={"confirm": None, "misses": 0})
        return Turn(state=cleared, text=_join("OK, not that.", render_question(ctx.q, cleared)), event="invalid")
    return None


def advance(
    state: IntakeState, text: str | None, q: Questionnaire | None = None, engine: Engine | None = None
) -> Turn:
    """One step of the dialog. Never raises for any ``text``; ``None`` counts as empty."""
    ctx = _context(q, engine)
    raw = (text or "")[:MAX_ANSWER_CHARS]
    command = ctx.q.commands.command_of(raw)
    if state.status != "asking" or command == "restart":
        if command == "restart":
            fresh = start(ctx.q, ctx.engine)
            return Turn(state=fresh.state, text=f"Starting over.\n{fresh.text}", event="restart")
        return Turn(state=state, text=f"This intake is {state.status}; type 'restart' to begin again.", event="invalid")
    if command == "cancel":
        return Turn(state=state.model_copy(update={"status": "cancelled"}), text="Intake cancelled.", event="cancel")
    if command == "back":
        return _back(ctx, state)
    if state.offered:
        return _on_offer(ctx, state, raw, command)
    if state.current is None:  # a migrated state, between questions
        return _proceed(ctx, state, "", "start")
    question = ctx.q.by_field(state.current)
    if command == "help":
        return Turn(state=state, text=_join(f"{question.help} {ctx.q.unknown.help}", _on_screen(ctx, state)), event="help")
    if command == "skip":
        return _record(ctx, state, question, UNKNOWN, "skipped")
    if state.confirm is not None:
        replied = _on_confirm(ctx, state, question, raw)
        if replied is not None:
            return replied
        state = state.model_copy(update={"confirm": None})
    value = question.match(raw)
    if value is not None:
        return _record(ctx, state, question, value, "answered")
    return _free_text(ctx, state, question, raw)

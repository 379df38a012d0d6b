"""A conversation that remembers what the team said about itself, for the REPL and Slack.

Why: people describe their setup first and ask for a recommendation second. Without memory
``/recommend`` would ask again what the person just wrote. So each message read for the team
(:func:`knowledge.recommend.reading.read_message`) is merged into a :class:`Understood`:

* a later statement of a field replaces the earlier one (the person knows best, and latest);
  a message that opens as a correction ("no, we're on Azure", "actually we use JAX") is not
  sent to the notes at all: it updates the fields and re-scores;
* implied answers are re-derived from the merged statements every time, so correcting the
  premise ("actually the architecture changes weekly") withdraws what it implied;
* ``/recommend`` (and Slack's intake) start from it: "From what you said: ...", then only the
  questions that remain.

The state is small and JSON round-trippable, so Slack can keep one per channel and person in
its shared state store.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, ConfigDict

from bot.advice import Advice, advise_answer, needs_reading, not_english
from knowledge.qa.answers import Answer
from knowledge.recommend import WorkloadProfile
from knowledge.recommend.extraction import Extraction, FieldEvidence
from knowledge.recommend.implication import Implied, implied
from knowledge.recommend.message_checks import is_correction
from knowledge.recommend.profile import FIELD_VALUES, parse_profile
from knowledge.recommend.reading import MessageReading, read_message

__all__ = ["Understood", "converse", "from_what_you_said", "MEMORY_TTL", "MEMORY_NAMESPACE"]

#: How long Slack keeps what a person said about their team (seconds): a working week.
MEMORY_TTL = 5 * 24 * 3600
#: The state-store namespace of what each person said, keyed ``<channel>:<user>``.
MEMORY_NAMESPACE = "understood"


class Understood(BaseModel):
    """What the conversation has established about the team so far."""

    model_config = ConfigDict(extra="forbid")

    #: field -> [value, the words it came from]
    stated: dict[str, tuple[str, str]] = {}
    #: implication rule id -> the words that fired it
    hits: dict[str, str] = {}

    @property
    def empty(self) -> bool:
        return not self.stated and not self.hits

    def implied(self) -> dict[str, Implied]:
        return implied(self.stated, self.hits)

    def answers(self) -> dict[str, str]:
        out = {f: i.value for f, i in self.implied().items()}
        out.update({f: v for f, (v, _) in self.stated.items()})
        return out

    def profile(self) -> WorkloadProfile:
        return parse_profile(self.answers(), origin="conversation")

    def as_reading(self, latest: MessageReading) -> MessageReading:
        """The whole conversation as one reading: remembered fields, their implications, and the
        latest message's questions and notes (so the verdict and its reasons are for everything said)."""
        stated = {f: FieldEvidence(field=f, value=v, span=(0, 0), evidence=w, confidence=1.0)
                  for f, (v, w) in self.stated.items()}
        return latest.model_copy(update={"stated": stated, "implied": self.implied(), "hits": dict(self.hits)})

    def merge(self, reading: MessageReading) -> tuple[Understood, list[str]]:
        """The memory with ``reading`` folded in, and one line per field whose value changed."""
        stated = dict(self.stated)
        changes = []
        for f, e in reading.stated.items():
            old = stated.get(f)
            if old is not None and old[0] != e.value:
                changes.append(f"{_words(f)}: {_words(old[0])} -> {_words(e.value)} (you wrote \"{e.evidence}\")")
            stated[f] = (e.value, e.evidence)
        for c in reading.confirmations:  # a field now in doubt is asked again, not kept
            stated.pop(c.field, None)
        merged = Understood(stated={f: stated[f] for f in FIELD_VALUES if f in stated}, hits={**self.hits, **reading.hits})
        return merged, changes


def _words(value: str) -> str:
    return value.replace("_", " ")


def from_what_you_said(understood: Understood, label: Callable[[str, str], str] | None = None) -> str:
    """"From what you said: cloud = Google Cloud ("on GCP"), ...; implied: stage = ... (because ...)."

    ``label`` turns (field, value) into the intake's words; by default the value itself.
    """
    show = label or (lambda f, v: _words(v))
    parts = [f"{_words(f)} = {show(f, v)} (\"{w}\")" if w else f"{_words(f)} = {show(f, v)}"
             for f, (v, w) in understood.stated.items()]
    imp = understood.implied()
    line = "From what you said: " + (", ".join(parts) if parts else "nothing stated yet")
    if imp:
        line += "; implied: " + ", ".join(f"{_words(f)} = {show(f, i.value)} ({i.because})" for f, i in imp.items())
    return line + "."


def _correction(question: str, understood: Understood, changes: list[str], reading: MessageReading) -> Advice:
    """The reply to a correction: what changed, then the verdict for everything said, with its cited reasons."""
    shell = Answer(question=question, answer="", declined=False, intent="situational")
    advice = advise_answer(shell, question, understood.as_reading(reading))
    head = ("Updated " + "; ".join(changes) + ".") if changes else "Noted."
    text = "\n".join([head, from_what_you_said(understood), advice.answer.answer])
    if advice.recommendation is not None and advice.recommendation.next_questions:
        text += "\nType /recommend to answer only what remains."
    return Advice(advice.answer.model_copy(update={"answer": text}), advice.profile, advice.recommendation, reading)


def converse(ask: Callable[[str], Answer], text: str, understood: Understood | None = None,
             extract: Callable[[str], Extraction] | None = None) -> tuple[Advice, Understood]:
    """Answer one message in a conversation; returns the advice and the memory after it.

    ``ask`` is the notes' answer to a question (``QAEngine.ask``); it is not called for a
    correction or a message not in English. ``extract`` is the process's extraction step
    (the same as ``recommend --text``: :func:`bot.extractor.lazy_extractor`); the language
    check reads with the rules only, and the message is read with ``extract`` only when it
    may be a correction or its answer needs the team's situation.
    """
    understood = understood or Understood()
    reading = read_message(text)
    if reading.language == "other":
        return not_english(text), understood
    full = extract is None  # the rules' reading is the full one when no extractor is given
    if not understood.empty and is_correction(text):
        if not full:
            reading, full = read_message(text, extract=extract), True
        if reading.stated:
            merged, changes = understood.merge(reading)
            return _correction(text, merged, changes, reading), merged
    answer = ask(text)
    if not full and needs_reading(answer, text):
        reading = read_message(text, extract=extract)
    merged, _ = understood.merge(reading)
    advice = advise_answer(answer, text, merged.as_reading(reading))
    if advice.profile is None:  # not about the team: the memory stays as it was
        return advice, understood
    return advice, merged

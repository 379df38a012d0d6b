"""Situational questions: the one place the question engine and the recommendation engine meet.

``knowledge.qa`` and ``knowledge.recommend`` never import each other, so a question such as
"we're a small PyTorch team on AWS, should we look at TPUs?" is joined here, above both:
``profile_from_text`` reads the team's situation out of it and the shared scoring engine
gives the verdict.

The engine answers only a *choice for the team* (the ask types ``choice``, or an open
comparison that describes the team): the answer leads with the verdict and one reason, the
notes' own answer to the question when it argues for that verdict, else the engine's first;
then what was read, the engine's reasons (labelled as the engine's: they are rule
explanations, not note sentences), and the unknown answers that could still change it, never
one the user stated. Any other ask (what's going on, does X matter, is that realistic, what to
watch for) keeps the cited answer from the notes; when the situation is rich and the ask weighs
the choice (does it matter, is it realistic, what to watch for), one closing line adds the
engine's verdict for it with a pointer to ``/recommend``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from bot.team_notes import cited_lead, exception_for, leads_with_exception, rules_out
from knowledge.qa.answers import Answer, AnswerSentence, Citation
from knowledge.recommend.message_checks import NOT_ENGLISH, message_language

if TYPE_CHECKING:
    import numpy as np

    from knowledge.qa.service import QAEngine
    from knowledge.recommend.extraction import Extraction
    from knowledge.recommend.profile import WorkloadProfile
    from knowledge.recommend.reading import MessageReading
    from knowledge.recommend.recommendation import Recommendation

__all__ = ["Advice", "advise", "advise_answer", "not_english", "MAX_REASONS", "MAX_AGAINST", "MAX_OPEN_QUESTIONS"]

#: The answer gives the strongest reasons only; the full list is in ``recommendation``.
MAX_REASONS = 3
#: At most this many reasons against the verdict, after the reasons for it.
MAX_AGAINST = 1
#: "1-3 unknown answers that could still change it."
MAX_OPEN_QUESTIONS = 3

_LABEL = re.compile(r"^\[(?P<cid>[A-Za-z0-9_\-]+:c\d{4})\] (?P<file>\S+) p(?P<pages>\d+-\d+)$")


@dataclass(frozen=True)
class Advice:
    """An answer, plus the profile and verdict when the question was situational."""

    answer: Answer
    profile: WorkloadProfile | None = None
    recommendation: Recommendation | None = None
    #: how the message was read (stated, implied, to confirm), when it was read for the team
    reading: MessageReading | None = None

    def to_contract(self) -> dict[str, Any]:
        """``ask --json``: the answer's keys, then ``profile`` and ``recommendation`` when present."""
        out = self.answer.to_contract()
        if self.profile is not None and self.recommendation is not None:
            out["profile"] = self.profile.known()
            out["recommendation"] = self.recommendation.to_contract()
            if self.reading is not None and self.reading.implied:
                out["implied"] = self.reading.to_json()["implied"]
        return out


def _citation(label: str) -> Citation | None:
    """A rule citation label back into a :class:`Citation` (score 1.0: cited by rule, not by retrieval)."""
    m = _LABEL.match(label)
    if m is None:
        return None
    return Citation(label=label, chunk_id=m["cid"], source=m["file"], pages=m["pages"], score=1.0)


#: Speaking of one's own team: "we train ...", "our model ...", "my team ...".
_FIRST_PERSON = re.compile(r"\b(we|we'?re|we'?ve|our|ours|us|my team|my company|i'?m|i am|i have)\b", re.IGNORECASE)
#: A choice question ("... TPU or GPU?") that describes the team's own setup in this many
#: understood profile fields is answered by the engine, like a situational one.
MIN_FIELDS_FOR_A_CHOICE = 2
#: A situation this rich earns a closing line with the engine's verdict under another ask.
MIN_FIELDS_FOR_A_VERDICT_LINE = 3
#: Asks the engine answers (knowledge.qa.asks answer types); "" is an answer without an ask type.
_CHOICE_ASKS = frozenset({"choice", ""})
#: Asks that weigh the choice itself ("does that matter for us?", "is that realistic?"), where the
#: engine's verdict is worth a closing line. A how-to, a fix, a diagnosis or an explanation is asked
#: about what the team already runs: a verdict there is noise ("our TPU pod recompiles every batch,
#: how do we fix it?" is not asking whether to use TPUs). So is "what should we watch for?": the
#: team has made its move and asks for the risks; a closing GPU verdict second-guessed the move
#: (an engineer judged fq62-28, fq63-27, fq66-28 and fq67-28 wrong with it).
_VERDICT_LINE_ASKS = frozenset({"does_matter", "realistic", "yes_no", "which_one"})


def _reading_can_matter(answer: Answer, question: str) -> bool:
    """Whether any number of understood fields could send this answer to the engine or close it with
    a verdict line (:func:`_describes_the_team`, the verdict line's ask and person): only then is the
    message read, so "why would a TPU sit idle?" never opens the learned extractor (a second ONNX
    session, about 0.2 s of a cold ask) to find nothing it could use."""
    first_person = _FIRST_PERSON.search(question) is not None
    to_engine = answer.ask in _CHOICE_ASKS | {"compare"} and (
        answer.intent == "situational" and answer.ask in _CHOICE_ASKS
        or answer.intent in ("comparison", "yes_no", "situational") and first_person)
    return to_engine or answer.ask in _VERDICT_LINE_ASKS and first_person


def _describes_the_team(answer: Answer, question: str, understood: int) -> bool:
    if answer.ask not in _CHOICE_ASKS | {"compare"}:
        return False  # a diagnosis, a "does X matter", a how-to: answered from the notes
    if answer.intent == "situational" and answer.ask in _CHOICE_ASKS:
        return understood > 0
    return (answer.intent in ("comparison", "yes_no", "situational") and understood >= MIN_FIELDS_FOR_A_CHOICE
            and _FIRST_PERSON.search(question) is not None)


def not_english(question: str) -> Advice:
    """The reply to a message not in English: said in English, nothing guessed, the intake offered."""
    return Advice(Answer(question=question, answer=NOT_ENGLISH, declined=True, mode="declined",
                         decline_reason="not_english"))


def _stated(field: str, question: str) -> bool:
    """Whether the question names one of the field's values: the user stated it, so it is not open."""
    from knowledge.recommend.profile import WorkloadProfile

    values = WorkloadProfile.model_fields[field].annotation
    words = [str(v).replace("_", " ") for v in getattr(values, "__args__", ()) if isinstance(v, str) and v != "unknown"]
    low = question.lower()
    return any(re.search(rf"\b{re.escape(w)}\b", low) for w in words if len(w) > 3)


def _open_fields(rec: Recommendation, reading: MessageReading, question: str) -> list[str]:
    """The unknown answers that could still change the verdict, never one the user stated or one implied."""
    return [f for f in rec.next_questions
            if f not in reading.stated and f not in reading.implied and not _stated(f, question)][:MAX_OPEN_QUESTIONS]


#: The least share of the ways the open answers could go that must keep a verdict for the closing
#: line to state it. Below it, one completion in four or more changes the verdict: too many to
#: call, so the line gives the split and the answers that would settle it.
CALLS_IT = 0.75


def _verdict_line(answer: Answer, question: str, reading: MessageReading, rec: Recommendation) -> Advice:
    """The notes' answer, closed by one line with the engine's verdict for the stated situation.

    A verdict that rests on answers the question left open says how firm it is and which answers
    would settle it: under a notes' sentence calling the case a TPU's strongest, a bare "GPU now,
    TPU later" reads as a contradiction when it only reflects what was not said. Too close to call,
    the line names the answers that would settle it and no split: the shares of the ways the open
    answers could go are the priors over what was not said, and "GPU 56%, TPU 11%" under "the
    strongest case for a TPU" read as a GPU lean (judged misleading on fq58-27 and fq65-27)."""
    from knowledge.recommend.recommendation import VERDICT_LABELS

    line = f"The recommendation engine's verdict for the situation you describe: {VERDICT_LABELS[rec.recommendation]}"
    open_fields = [f.replace("_", " ") for f in _open_fields(rec, reading, question)]
    settle = ""
    if open_fields:
        settle = open_fields[0] if len(open_fields) == 1 else f"{', '.join(open_fields[:-1])} and {open_fields[-1]}"
    tail = ". Run /recommend for the reasons and what could change it."
    if settle and rec.confidence < CALLS_IT:
        # a verdict most open answers do not keep would contradict the notes it closes ("the
        # strongest case for a TPU ... GPU"): say what would settle it instead, and under a lead
        # that took a side not that the engine "cannot call it" (read as a contradiction, fq80-25)
        lead = _notes_lead(answer)
        line = (f"Whether that holds for your team turns on {settle}: run /recommend to answer them and get the "
                "engine's verdict." if lead is not None and lead[2] is not None else
                f"The recommendation engine cannot call it from what you describe: {settle} would settle it. "
                "Run /recommend to answer them.")
    elif settle and rec.confidence < 1.0:
        line += f", though only {rec.confidence:.0%} of the ways the open answers could go keep it; {settle} would settle it{tail}"
    else:
        line += tail
    return Advice(answer.model_copy(update={"answer": answer.answer + "\n" + line}), reading.profile(), rec)


#: The note sides that explain each verdict: "GPU now, TPU later" is explained by either.
_EXPLAINS = {"gpu": ("gpu",), "tpu": ("tpu",), "gpu_then_tpu": ("gpu", "tpu")}


def _notes_lead(answer: Answer) -> tuple[AnswerSentence, Citation, str | None] | None:
    """The notes' lead sentence for this question, with its citation and the side it argues for.

    Retrieval and the lead model chose it for the question's own words, so on fresh batches
    it is often the sentence the writer expected ("a small team that fine-tunes models now and
    then ... better served by GPUs, because weeks of porting ... rarely pay back on short jobs")
    where the engine's first reason is a general rule. Only a lead arguing for the verdict
    (:data:`_EXPLAINS`) is given as its reason; one arguing the other way, too close to call,
    yields the lead to the notes (:func:`_verdict_line`).
    """
    from knowledge.qa.sides import argues_for

    found = cited_lead(answer)
    return None if found is None else (*found, argues_for(found[0].text))


#: Capitalized words of the notes that are names, kept as they are after "since".
_NAMES = frozenset({"Pallas", "Cloud", "Google", "Grain"})


#: A reason's short label before its sentence ("TPU not available: Cloud TPUs are ...").
_REASON_LABEL = re.compile(r"^[A-Z][\w-]*(?: [\w-]+){0,3}: (?=[A-Z])")


def _waiting(reason: str, rec: Recommendation) -> str:
    """The verdict's reason, and for a staged verdict that only unsaid answers hold back, what it
    waits on: "GPU now, TPU later, since <the strongest case for a TPU>" alone reads as a
    contradiction to a team that said nothing against a TPU (an engineer judged three such
    answers wrong, and a fourth that only named the open answers: "the answer should have been
    yes, try TPUs"); the staged verdict's own first step is a pilot on a small slice, and the
    "later" is the open answers, so the first sentence says both."""
    if rec.recommendation != "gpu_then_tpu" or not rec.waits_on:
        return reason
    names = [f.replace("_", " ") for f in rec.waits_on]
    said = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    return (f"{reason.rstrip('.')}; nothing you said stands in the way of a TPU: pilot one on a small slice now, "
            f"and move once the answers you have not given yet ({said}) hold.")


def _unlabelled(sentence: str) -> str:
    """The reason without its short label, to continue a verdict after "since"."""
    return _REASON_LABEL.sub("", sentence, count=1)


def _continuing(sentence: str) -> str:
    """A reason sentence continued after "since": its first word lower-cased unless it is a name
    ("On another cloud ..." and "Large-scale training ..." continue in lower case, "PyTorch
    targets ..." and "Pallas is ..." stay)."""
    first = sentence.split(" ", 1)[0]
    if first in _NAMES or not re.fullmatch(r"[A-Z][a-z'-]*", first):
        return sentence
    return sentence[:1].lower() + sentence[1:]


def needs_reading(answer: Answer, question: str) -> bool:
    """Whether the team's situation can matter to this answer (only then is the message read in full)."""
    if answer.declined or answer.ask == "multi" or answer.intent not in ("situational", "comparison", "yes_no", "why", "how"):
        return False
    return _reading_can_matter(answer, question)


def advise_answer(answer: Answer, question: str, reading: MessageReading | None = None,
                  extract: Callable[[str], Extraction] | None = None) -> Advice:
    """Join one QA answer with the engine's verdict when the question describes the team's situation.

    Situational questions ("we are ..., should we ...?") go to the engine whenever the text
    states anything about the team. A choice question ("we train a 70B model in JAX on a
    pod; TPU or GPU?") goes there too when it speaks of the team and states at least two
    profile answers: the general notes would answer a question nobody asked.
    ``extract`` is the process's extraction step (:func:`bot.extractor.lazy_extractor`); when
    given, the question is re-read with it once the answer shows the situation matters.
    """
    if not needs_reading(answer, question):
        return Advice(answer)
    # the vocabulary, the profile models and the decision model load only for a team's question
    from knowledge.recommend.reading import read_message
    from knowledge.recommend.recommendation import VERDICT_LABELS
    from knowledge.recommend.recommender import recommend

    if extract is not None:  # the learned extractor, opened only now that the team's words matter
        reading = read_message(question, extract=extract)
    reading = reading if reading is not None else read_message(question)
    if not _describes_the_team(answer, question, len(reading.stated)):
        if (answer.ask in _VERDICT_LINE_ASKS and len(reading.stated) >= MIN_FIELDS_FOR_A_VERDICT_LINE
                and _FIRST_PERSON.search(question)):
            rec = recommend(reading.profile())
            if not leads_with_exception(answer, reading, rec.recommendation):
                return _verdict_line(answer, question, reading, rec)
        return Advice(answer)  # nothing about the team was stated, or another ask: the cited notes answer it
    profile = reading.profile()
    rec = recommend(profile)
    notes = _notes_lead(answer)
    explains = _EXPLAINS.get(rec.recommendation, ())
    # a verdict whose only reason is the default ("GPUs are the default"), every stated answer
    # pulling the other way, rests on what was not said just as a close call does
    by_default = all(r.effect == "default" for r in rec.reasons if r.direction == "for")
    if (rec.confidence < CALLS_IT or by_default) and notes is not None and notes[2] is not None and notes[2] not in explains:
        # Too close to call, and the notes' own answer argues the other way ("the strongest case
        # for a TPU" under a GPU verdict only half the open answers keep): a verdict leading with
        # "GPUs are the default" would contradict the notes on a guess about what was not said.
        # The notes lead, and the engine's line gives the split and what would settle it.
        return replace(_verdict_line(answer, question, reading, rec), reading=reading)
    understood = ", ".join(f"{f.replace('_', ' ')} {e.value.replace('_', ' ')}" for f, e in reading.stated.items())
    if reading.implied:
        understood += "; implied: " + ", ".join(
            f"{f.replace('_', ' ')} {i.value.replace('_', ' ')} ({i.because})" for f, i in reading.implied.items())
    odds = "" if rec.confidence >= 1.0 else f"; {rec.confidence:.0%} of the ways the open questions could be answered keep it"
    label = VERDICT_LABELS[rec.recommendation]
    sentences: list[AnswerSentence] = []
    citations: dict[str, Citation] = {}
    parts: list[str] = []
    cited = [(r, [c for c in (_citation(ref) for ref in r.citations) if c is not None]) for r in rec.reasons]
    chosen = [(r, cs) for r, cs in cited if cs and r.direction == "for"][:MAX_REASONS]
    # the strongest answer against the verdict, so a GPU verdict does not hide the TPU signals
    chosen += [(r, cs) for r, cs in cited if cs and r.direction == "against"][:MAX_AGAINST]
    # the verdict and its first reason are one sentence, so the first sentence answers "should we?"
    # with why; what was read from the message, and how sure the engine is, follow it. The reason
    # is the notes' own answer to this question when it argues for the verdict: chosen for the
    # team's own words, it is the why in their terms ("a small team that fine-tunes now and then
    # ... weeks of porting rarely pay back on short jobs"), where the engine's first reason is a
    # general rule ("on another cloud a TPU also means moving to Google Cloud"), which then follows
    # as the engine's reason. Both are cited; only note sentences carry a note's citation.
    # (a note the engine's reasons already say is said once, as the engine's)
    said = {r.sentence for r, _ in cited}
    note = notes[:2] if (notes is not None and notes[2] in explains and notes[0].text not in said
                         and not rules_out(notes[0].text, reading)) else None
    top = chosen.pop(0) if note is None and chosen and chosen[0][0].direction == "for" else None
    # a first reason that rules the TPU out or blocks it ("On another cloud a TPU also means moving
    # to Google Cloud", "TPU not available: ...") decides the verdict by itself, so it joins the
    # notes' reason in the first sentence rather than waiting below it: "should we move?" is
    # answered by both (weeks of porting do not pay back, and TPUs are not on their cloud)
    also = chosen.pop(0) if note is not None and chosen and chosen[0][0].decides else None
    sentences.append(AnswerSentence(text=f"Recommendation: {label}.", chunk_id="", role="verdict"))
    if note is not None:
        sentence, cite = note
        sentences.append(sentence.model_copy(update={"role": "answer"}))
        joint = "because" if " since " in sentence.text else "since"  # not "since ..., since ..."
        line = f"Recommendation: {label}, {joint} {_waiting(_continuing(sentence.text), rec)} [{cite.chunk_id}]"
        citations.setdefault(cite.chunk_id, cite)
        if also is not None:
            reason, cites = also
            sentences.append(AnswerSentence(text=reason.sentence, chunk_id=cites[0].chunk_id, role="answer"))
            # one sentence, its citations after it as for every engine reason
            line = (f"{line.removesuffix(f' [{cite.chunk_id}]').rstrip('.')}, and {_continuing(_unlabelled(reason.sentence))} "
                    + " ".join(f"[{c}]" for c in dict.fromkeys([cite.chunk_id, *(c.chunk_id for c in cites[:2])])))
            for c in cites[:2]:
                citations.setdefault(c.chunk_id, c)
        parts.append(line)
    elif top is not None:
        # the engine's own sentence is kept apart, as it is for every reason (not a quote of a note)
        sentences.append(AnswerSentence(text=top[0].sentence, chunk_id=top[1][0].chunk_id, role="answer"))
        parts.append(f"Recommendation: {label}, since {_waiting(_continuing(_unlabelled(top[0].sentence)), rec)} "
                     + " ".join(f"[{c.chunk_id}]" for c in top[1][:2]))
        for c in top[1][:2]:
            citations.setdefault(c.chunk_id, c)
    else:
        parts.append(f"Recommendation: {label}.")
    # a note on a team like this one that points the other way ("a research team that already writes
    # JAX can prototype on TPUs too") follows the verdict at once: it answers "can we?" where the
    # engine, with no field for what it turns on, cannot
    exception = exception_for(answer, reading, rec.recommendation)
    if exception is not None and exception[0].text not in said and (note is None or exception[0].text != note[0].text):
        sentence, cite = exception
        sentences.append(sentence.model_copy(update={"role": "answer"}))
        parts[-1] += f" But {_continuing(sentence.text)} [{cite.chunk_id}]"
        citations.setdefault(cite.chunk_id, cite)
    parts.append(f"Read from your message: {understood}{odds}.")
    for reason, cites in chosen:
        text = reason.sentence
        sentences.append(AnswerSentence(text=text, chunk_id=cites[0].chunk_id, role="answer"))
        head = "The engine's reason against: " if reason.direction == "against" else "The engine's reason: "
        parts.append(f"{head}{text} " + " ".join(f"[{c.chunk_id}]" for c in cites[:2]))
        for c in cites[:2]:
            citations.setdefault(c.chunk_id, c)
    open_fields = _open_fields(rec, reading, question)
    if open_fields:
        parts.append("Still open, and able to change this: " + ", ".join(f.replace("_", " ") for f in open_fields) + ".")
    for confirm in reading.confirmations[:1]:
        parts.append(confirm.question)
    joined = answer.model_copy(update={
        "answer": "\n".join(parts),
        "citations": list(citations.values()) or answer.citations,
        "sentences": sentences,
        "mode": "recommendation",
        "declined": False,
    })
    return Advice(joined, profile, rec, reading)


def advise(engine: "QAEngine", question: str, *, query_vector: "np.ndarray | None" = None,
           extract: Callable[[str], Extraction] | None = None) -> Advice:
    """Ask the engine, then join the verdict for situational questions; a message not in English is not guessed at.

    Only the language is checked up front; the message is read for the team's situation
    (the rules, or ``extract``, the learned extractor) only when the answer needs it, so a
    plain question never pays for the vocabulary or the decision model.
    """
    if message_language(question) == "other":
        return not_english(question)
    return advise_answer(engine.ask(question, query_vector=query_vector), question, None, extract)

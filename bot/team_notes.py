"""Note sentences read against the team that asked: which ones its own words rule out, and which
one describes a team like it while pointing the other way from the engine's verdict.

A note sentence names the situation it is about ("while the project is still exploratory", "a
research team that already writes JAX"), so it can be read like a message and its answers compared
with the team's. Both checks live here, beside each other, because both rest on that reading and
on its limits: the notes' other prose reads wrongly as a message ("deployment outside Google
Cloud" as Google Cloud, "weeks of porting" as a time budget), so a check trusts a reading only as
far as it says below.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from knowledge.qa.answers import Answer, AnswerSentence, Citation

if TYPE_CHECKING:
    from knowledge.recommend.reading import MessageReading

__all__ = ["rules_out", "exception_for", "leads_with_exception", "cited_lead", "MIN_SHARED_FIELDS"]

#: The fields a note's sentence names as its condition plainly enough to compare on their own:
#: the project's phase ("while the project is still exploratory", "once the architecture is
#: stable"). In-sample fq20-fq45 lost four right reasons when the other fields were compared too.
_CONDITION_FIELDS = ("stage", "architecture_changes")
#: A note sentence describes a team like the asker's when this many of its readings are the team's
#: own, and none of them differs: one shared word ("JAX", "training") is a topic, not a team.
MIN_SHARED_FIELDS = 2
#: Which accelerator a sentence must be about to point away from each verdict.
_OTHER_SIDE = {"gpu": "tpu", "tpu": "gpu"}


def _known(reading: MessageReading) -> dict[str, str]:
    return {f: e.value for f, e in reading.stated.items()} | {f: i.value for f, i in reading.implied.items()}


def _about(sentence: str) -> dict[str, str]:
    from knowledge.recommend.textual import profile_from_text

    return profile_from_text(sentence).answers()


def rules_out(sentence: str, reading: MessageReading) -> bool:
    """Whether the team's own words (stated or implied) contradict the situation the note's sentence
    is about: "stay on GPUs while the project is still exploratory" is no reason for a team whose
    architecture has been frozen for months (fq45-23)."""
    known, about = _known(reading), _about(sentence)
    return any(f in known and f in about and about[f] != known[f] for f in _CONDITION_FIELDS)


def _points_away(sentence: AnswerSentence, known: dict[str, str], verdict: str, min_shared: int) -> bool:
    """Whether a note sentence is about the accelerator other than a one-sided ``verdict``, does not
    argue for the verdict, and reads as a team sharing at least ``min_shared`` of ``known``'s answers
    and contradicting none (an answer the team left unsaid contradicts nothing)."""
    from knowledge.qa.sides import argues_for, side_of

    other = _OTHER_SIDE.get(verdict)
    if other is None or not sentence.chunk_id or side_of(sentence.text) != other or argues_for(sentence.text) == verdict:
        return False
    about = _about(sentence.text)
    shared = [f for f in about if known.get(f) == about[f]]
    return len(shared) >= min_shared and not any(f in known and known[f] != about[f] for f in about)


def exception_for(answer: Answer, reading: MessageReading, verdict: str) -> tuple[AnswerSentence, Citation] | None:
    """The sentence of the notes' own answer that describes a team like this one and points the other
    way from a one-sided ``verdict`` ('gpu' or 'tpu'), with its citation; else None.

    "A research team that already writes JAX can prototype on TPUs too, as long as its shapes stay
    static" is the notes' answer to a JAX research group asking whether it can prototype on TPUs; the
    engine, which has no field for static shapes, says GPU for exploratory work, and an answer that
    gave the verdict alone was judged wrong (fq90-21, fq91-28). The sentence must be about the other
    accelerator and not argue against it, and at least :data:`MIN_SHARED_FIELDS` of its readings must
    be the team's own, none different.
    """
    if answer.declined:
        return None
    known = _known(reading)
    for sentence in answer.sentences:
        if _points_away(sentence, known, verdict, MIN_SHARED_FIELDS):
            cited = next((c for c in answer.citations if c.chunk_id == sentence.chunk_id), None)
            if cited is not None:
                return sentence, cited
    return None


def leads_with_exception(answer: Answer, reading: MessageReading, verdict: str) -> bool:
    """Whether the notes' answer opens with a note on a team like this one that points away from the
    engine's ``verdict``: it then answers the team's own "can we prototype on TPUs?", and a closing
    line with the engine's other verdict read as a contradiction of it (an engineer judged fq95-32
    wrong for "..., as long as its shapes stay static" closed by "GPU"). The lead was chosen for the
    question's own words, so one shared answer (JAX) with none different is enough here; joining a
    note to the engine's verdict (:func:`exception_for`) asks for two."""
    found = cited_lead(answer)
    return found is not None and _points_away(found[0], _known(reading), verdict, min_shared=1)


def cited_lead(answer: Answer) -> tuple[AnswerSentence, Citation] | None:
    """The notes' lead of an answer (its first note sentence, whatever its role) with its citation;
    None for a declined answer or one whose lead is not cited. The verdict line quotes it as its
    reason and :func:`leads_with_exception` reads it, so both take the same sentence."""
    if answer.declined:
        return None
    lead = next((s for s in answer.sentences if s.chunk_id), None)
    cited = next((c for c in answer.citations if lead is not None and c.chunk_id == lead.chunk_id), None)
    return None if lead is None or cited is None else (lead, cited)

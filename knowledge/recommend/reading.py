"""A whole message read for the recommendation: checks, extraction, contradictions, implications.

``profile_from_text`` (the extractor) says what each field is and on which words. This
module is the step around it that every front end shares (``recommend --text``, the REPL,
Slack), so the same message gets the same reading everywhere:

1. **checks** (:mod:`.message_checks`): a message not in English, or with no words at all
   (numbers, emoji), is not read; it gets a note and nothing is invented. A long one is read
   up to a limit and says so; a pasted YAML/JSON config is read and flagged.
2. **extraction**: ``profile_from_text`` on the (cut) text, or the ``extract`` a caller passes
   (the rules and the learned clause heads together: :mod:`knowledge.recommend.learned.combine`).
3. **contradictions**: the message is read again sentence by sentence. A field that
   different sentences set to different values ("we're on AWS. we're on GCP.") is not
   kept: it becomes a confirmation question. This only ever *removes* a field.
4. **clouds**: two or three clouds the team says plainly it is on now are a multi-cloud team
   (the only field this step sets); a cloud named only in a planned, past or someone else's
   clause leaves the one said plainly; anything else that names several is asked.
5. **implications** (:mod:`.implication`): answers the stated ones imply, kept apart from
   the stated ones, never over them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from pydantic import BaseModel

from knowledge.recommend.extraction import Confirmation, Extraction, FieldEvidence
from knowledge.recommend.implication import Implied, implied, text_hits
from knowledge.recommend.message_checks import (
    NOT_ENGLISH,
    MessageChecks,
    cloud_names,
    corrects_itself,
    language_of,
    load_checks,
    shape_of,
)
from knowledge.recommend.profile import FIELD_VALUES, UNKNOWN, WorkloadProfile, parse_profile
from knowledge.recommend.textual import profile_from_text, states_the_team

__all__ = [
    "MessageReading", "read_message", "NOT_ENGLISH", "NO_WORDS", "field_words"]

NO_WORDS = ("That message has no words I can read (only numbers or symbols), so I understood nothing from it. "
            "Describe your team, model, cloud and scale in a sentence, or answer the short intake.")
_SENTENCE = re.compile(r"[^.!?;\n]+")


def field_words(field: str, value: str) -> str:
    """``cloud``/``google_cloud`` -> "cloud: google cloud", for one-line notes."""
    return f"{field.replace('_', ' ')}: {value.replace('_', ' ')}"


class MessageReading(BaseModel):
    """What a message says about the team: stated, implied, to confirm, and notes on how it was read."""

    language: str = "en"
    stated: dict[str, FieldEvidence] = {}
    implied: dict[str, Implied] = {}
    confirmations: list[Confirmation] = []
    #: implication rule id -> the words that fired it (kept so a conversation can re-derive implications)
    hits: dict[str, str] = {}
    #: one-line explanations of what was done with the message (cut, not read, asked instead)
    notes: list[str] = []

    @property
    def read(self) -> bool:
        """False when the message was not read at all (not English, no words)."""
        return self.language != "other" and NO_WORDS not in self.notes

    def answers(self) -> dict[str, str]:
        """Stated answers, then implied ones for the fields nothing stated."""
        out = {f: i.value for f, i in self.implied.items()}
        out.update({f: e.value for f, e in self.stated.items()})
        return out

    def profile(self) -> WorkloadProfile:
        return parse_profile(self.answers(), origin="text")

    def to_json(self) -> dict[str, object]:
        """``recommend --text --json`` additions: implied answers with their reason, and the notes."""
        return {
            "implied": {f: {"value": i.value, "because": i.because} for f, i in self.implied.items()},
            "notes": list(self.notes),
        }


def _contradictions(
    text: str, stated: Mapping[str, FieldEvidence], checks: MessageChecks, unsaid: Sequence[tuple[str, int, int]] = (),
) -> dict[str, list[tuple[str, str]]]:
    """Field -> [(value, words)] for the set fields that different sentences state differently.

    ``unsaid`` are the extraction's (field, start, end) mentions read as not about the team now
    (past, planned, negated, someone else's): "we used TensorFlow before, now it is all PyTorch"
    is no contradiction once the extractor read the first half as past, and a sentence read on
    its own, without that reading, must not bring it back."""
    seen: dict[str, dict[str, str]] = {}
    for n, m in enumerate(_SENTENCE.finditer(text)):
        if n >= checks.limits.max_clauses:
            break
        sentence = m.group(0)
        if len(sentence.strip()) < 3:
            continue
        for f, e in profile_from_text(sentence).fields.items():
            at = m.start() + e.span[0]
            if any(g == f and start <= at < end for g, start, end in unsaid):
                continue
            seen.setdefault(f, {}).setdefault(e.value, e.evidence)
    out = {}
    for f, values in seen.items():
        if f not in stated or len(values) < 2 or f == "workload":  # training here, serving there: both
            continue
        if f == "cloud" and "multi_cloud" in values:  # the clouds named are its members
            continue
        out[f] = list(values.items())
    return out


def _ask(field: str, found: list[tuple[str, str]]) -> Confirmation:
    words = " and ".join(f'"{w}"' for _, w in found)
    options = [v.replace("_", " ") for v, _ in found]
    if field == "cloud" and "multi_cloud" not in dict(found):
        options.append("several clouds (multi-cloud)")
    question = f"You wrote {words}: which is right for {field.replace('_', ' ')}: {' or '.join(options)}?"
    return Confirmation(field=field, value=found[0][0], span=(0, 0), evidence=found[0][1], question=question)


#: How sure a multi-cloud reading from two or three plainly named clouds is: on fm6-fm29, 87 of the
#: 95 messages read so were labelled multi-cloud (the others told a past move or a plan the gate
#: read as plain), below the 0.9-0.95 the vocabulary gives a cloud it names outright.
_PLAIN_CLOUDS_CONFIDENCE = 0.8


def _cloud_value(provider: str) -> str:
    """A provider key of ``[clouds.providers]`` that is itself a cloud answer (``google_cloud``,
    ``on_prem``) is that answer; every other provider is another single cloud."""
    return provider if provider in FIELD_VALUES["cloud"] else "other_single_cloud"


def _read_clouds(
    text: str, checks: MessageChecks, extraction: Extraction, out: MessageReading, asked: set[str],
) -> None:
    """A message naming several clouds is multi-cloud, one of them, or a question; never the vocabulary's one guess.

    The vocabulary reads "AWS and Oracle" as one "other single cloud". Names in what the rules
    dropped ("not on GCP") are not counted. When the learned modifier gate has read the clauses
    (``extraction.modified`` is not ``None``), a name only in a clause it gates (planned, past,
    someone else's) is not the team's now: two or three names left, in a message that takes
    nothing back, are a multi-cloud team; one name left that is the cloud already read keeps
    it. Anything else is asked.
    """
    unsaid = [(start, end) for f, start, end in extraction.dropped if f == "cloud"]
    names = cloud_names(text, checks, unsaid=unsaid)
    held = out.stated.get("cloud")
    if len(names) < checks.limits.many_clouds or (held is not None and held.value == "multi_cloud"):
        return
    if extraction.modified is not None:
        plain = cloud_names(text, checks, unsaid=unsaid + extraction.modified)
        if (checks.limits.many_clouds <= len(plain) <= checks.limits.multi_cloud_up_to
                and not corrects_itself(text, checks)):
            start, end = plain[0].start, plain[-1].end
            out.stated["cloud"] = FieldEvidence(field="cloud", value="multi_cloud", span=(start, end),
                                                evidence=text[start:end], confidence=_PLAIN_CLOUDS_CONFIDENCE)
            out.confirmations = [c for c in out.confirmations if c.field != "cloud"]
            return
        if len(plain) == 1 and held is not None and held.value == _cloud_value(plain[0].provider):
            return
    out.stated.pop("cloud", None)
    out.confirmations = [c for c in out.confirmations if c.field != "cloud"]
    shown = ", ".join(c.name for c in names[:6]) + (", ..." if len(names) > 6 else "")
    out.confirmations.append(Confirmation(
        field="cloud", value="multi_cloud", span=(0, 0), evidence=shown,
        question=f"You named {len(names)} clouds ({shown}): must the work run on several of them "
                 "(multi-cloud), or which one is home?"))
    asked.add("cloud")
    out.notes.append(f"You named {len(names)} clouds, so I asked which applies rather than picking one.")


def read_message(
    text: str, checks: MessageChecks | None = None, extract: Callable[[str], Extraction] | None = None,
) -> MessageReading:
    """Read one message. Never raises for any text; bounded by ``[limits]`` whatever its size."""
    checks = checks or load_checks()
    text = text or ""
    out = MessageReading()
    cap = checks.limits.max_chars
    if len(text) > cap:
        out.notes.append(f"Your message is {len(text):,} characters long; I read the first {cap:,} only.")
        text = text[:cap]
    shape = shape_of(text, checks)
    if shape == "no_words":
        out.notes.append(NO_WORDS)
        return out
    if language_of(text, checks) == "other":
        out.language = "other"
        out.notes.append(NOT_ENGLISH)
        return out
    if shape == "config":
        out.notes.append("That looks like a pasted configuration (YAML or JSON): I read only what it states "
                         "outright about hardware, cloud and framework; please check it below.")
    extraction = (extract or profile_from_text)(text)
    out.stated = dict(extraction.fields)
    out.confirmations = list(extraction.confirmations)
    asked = {c.field for c in out.confirmations}
    for f, found in _contradictions(text, out.stated, checks, extraction.dropped).items():
        out.stated.pop(f, None)
        if f not in asked:
            out.confirmations.append(_ask(f, found))
            asked.add(f)
        out.notes.append(f"You stated {f.replace('_', ' ')} two ways, so I asked instead of picking one.")
    _read_clouds(text, checks, extraction, out, asked)
    out.hits = text_hits(text, keep=states_the_team)
    out.implied = implied({f: (e.value, e.evidence) for f, e in out.stated.items() if e.value != UNKNOWN},
                          out.hits, pending=frozenset(asked))
    assert set(out.stated) <= set(FIELD_VALUES)
    return out

"""Fields whose answer is the union of what the message says, read by the rules and the heads together.

A team that "retrains nightly" and runs "the live scoring" does both training and inference, but
the two halves are usually said in different clauses and in different ways: the rules know the
word "retrain", only the learned heads read "live for paying customers since 2022" as serving.
Left to the plain combination (the heads fill only what the rules left open), such a message
came out as training alone; and a side the rules matched inside a plan ("thinking about adding
our own fine-tuning next year") made a serving-only team "both". On fm16, 4 of the 7 wrong
values were this field.

So for a union field the sides are collected from both readers, each side once per clause:

* a side the rules matched counts unless the modifier head reads its clause as not plain
  (planned, past, negated, someone else's, a question): the rules' cue lists are word lists, the
  head reads the clause;
* a side the heads read counts when its clause is plain, the rules dropped nothing there, and
  the head is at least as sure as its own "ask to confirm" line (the rules have already said the
  field is spoken of, so the head is extending a stated answer, not inventing one).

The answer is the union's value when every side is plainly said, otherwise the one side said.
A field set from a labelled line ("workload: training") is the user's explicit answer and is
left alone (the rules keep no matches behind it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from knowledge.recommend.extraction import Extraction, FieldEvidence
from knowledge.recommend.learned.clauses import Clause, clause_at

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from knowledge.recommend.learned.reader import ClauseReader, Reading

__all__ = ["PLAIN_BELOW", "Union", "UNIONS", "WHOLES", "read_unions", "without_one_side_denials"]


@dataclass(frozen=True)
class Union:
    """A field whose ``whole`` value means every one of ``sides`` is true of the team."""

    field: str
    sides: tuple[str, ...]
    whole: str
    #: the value that denies every side ("neither" skill), when the field has one
    none_of: str = ""
    #: per side, the words that name it: a denial naming one side only ("no CUDA experience")
    #: denies that side, not the others
    side_words: tuple[tuple[str, str], ...] = ()

    def sides_of(self, value: str) -> set[str]:
        return set(self.sides) if value == self.whole else {value} & set(self.sides)

    def sides_named(self, text: str) -> set[str]:
        """The sides whose words ``text`` names ("no CUDA experience" names CUDA only)."""
        return {side for side, words in self.side_words if re.search(words, text, re.I)}


#: The profile's union fields (the schema's own meaning: "both" is training and inference, and a
#: team with CUDA and XLA skills has both: "two of us know XLA well and one is a CUDA expert" was
#: read as CUDA alone, fm34 and fm35).
UNIONS: tuple[Union, ...] = (
    Union("workload", ("training", "inference"), "both"),
    Union("team_expertise", ("cuda", "xla"), "both", none_of="neither",
          side_words=(("cuda", r"\b(?:cuda|gpus?|nvidia|triton)\b"), ("xla", r"\b(?:xla|jax|tpus?|pallas)\b"))),
)

#: Per field, the value that means "more than one of the others": a union's whole ("both"), and
#: for the cloud "multi_cloud" (two clouds named, or a cloud and our own racks, are a team on
#: several when that is what the clause says).
WHOLES: dict[str, str] = {**{u.field: u.whole for u in UNIONS}, "cloud": "multi_cloud"}


#: The modifier head's own decision line: a clause whose "no modifier" class is below even odds
#: reads as negated, hedged, planned, past, someone else's or a question rather than as a plain
#: statement about the team now.
PLAIN_BELOW = 0.5


def _plain(clauses: list[Clause], p_mod: "np.ndarray", at: int) -> bool:
    i = clause_at(clauses, at)
    return i is None or float(p_mod[i]) < PLAIN_BELOW


def read_unions(
    text: str, out: Extraction, clauses: list[Clause], p_mod: "np.ndarray",
    readings: "list[Reading]", reader: "ClauseReader",
) -> None:
    """Re-read each union field the rules set (see the module's docstring); ``out`` is updated in place."""
    for union in UNIONS:
        current = out.fields.get(union.field)
        if current is None:
            continue
        if current.value == union.none_of and union.side_words:
            _one_side_denied(union, out, clauses, p_mod, readings, reader)
            continue
        lo, hi = current.span
        members = [h for h in out.stated if h[0] == union.field and lo <= h[2] and h[3] <= hi]
        if not members:
            continue
        said: dict[str, tuple[int, int]] = {}
        for _, value, start, end, _ in members:
            if _plain(clauses, p_mod, start):
                for side in union.sides_of(value):
                    said.setdefault(side, (start, end))
        if not said:
            continue  # every side the rules found reads as not plain: the heads may extend an answer, not replace it
        refused = _refused_sides(union, out)
        for r in _sure_readings(union, out, readings, reader):
            for side in union.sides_of(r.value) - refused:
                said.setdefault(side, (r.clause.start, r.clause.end))
        value = union.whole if set(union.sides) <= set(said) else next(iter(said))
        if value == current.value:
            continue
        spans = list(said.values())
        start, end = min(s for s, _ in spans), max(e for _, e in spans)
        out.fields[union.field] = FieldEvidence(
            field=union.field, value=value, span=(start, end), evidence=text[start:end],
            confidence=current.confidence)


def _refused_sides(union: Union, out: Extraction) -> set[str]:
    """The sides whose words the rules matched and dropped for the text itself (negated, planned,
    past, or not the only one: "we don't train on accelerators at all", "inference only"), not for
    a word list's guess about someone else: the heads may extend the rules' answer with a side
    the message leaves unsaid, never with one it refuses (fm75-20 read "both" from "we serve ...
    on both AWS and Azure" beside that denial)."""
    doubted = {(f, s) for f, s, _ in out.doubted}
    return {v for f, v, s in out.denied if f == union.field and v in union.sides and (f, s) not in doubted}


def _sure_readings(
    union: Union, out: Extraction, readings: "list[Reading]", reader: "ClauseReader",
) -> "list[Reading]":
    """The heads' readings of the union's field that may extend the rules' answer: not gated, at
    least as sure as the head's own confirm line, and not in a clause where the rules refused a
    match of the field (the heads do not set what the rules dropped)."""
    medium = reader.heads.manifest.thresholds[union.field].medium
    dropped = [s for f, s, _ in out.dropped if f == union.field]
    return [
        r for r in readings
        if r.field == union.field and not r.gated and r.p >= medium
        and not any(r.clause.start <= s < r.clause.end for s in dropped)
    ]


def _one_side_denied(
    union: Union, out: Extraction, clauses: list[Clause], p_mod: "np.ndarray",
    readings: "list[Reading]", reader: "ClauseReader",
) -> None:
    """"Deep familiarity with XLA but no CUDA experience": the rules read the denial as none of the
    skills, but it names one side only. When the heads read another side plainly said (as sure as
    their own confirm line, in a clause the denial is not in), that side is the answer."""
    current = out.fields[union.field]
    named = union.sides_named(current.evidence)
    if len(named) != 1:
        return
    lo, hi = current.span
    others = [
        r for r in _sure_readings(union, out, readings, reader)
        if r.value in union.sides and r.value not in named and (r.clause.end <= lo or r.clause.start >= hi)
        and _plain(clauses, p_mod, r.clause.start)
    ]
    if others:
        best = max(others, key=lambda r: r.p)
        out.fields[union.field] = FieldEvidence(
            field=union.field, value=best.value, span=(best.clause.start, best.clause.end),
            evidence=best.clause.text, confidence=current.confidence)


def without_one_side_denials(name: str, readings: "list[Reading]") -> "list[Reading]":
    """The heads' sure readings of ``name`` less each "none of them" whose clause names one side
    only, when another reading says a side it does not name.

    "Everyone on the team is comfortable writing CUDA, but none of us has ever worked with XLA": the
    heads read the second clause as neither skill, which made the two readings a question; it denies
    XLA alone, which the first clause's CUDA agrees with (the heads' side of
    :func:`_one_side_denied`)."""
    union = next((u for u in UNIONS if u.field == name and u.none_of and u.side_words), None)
    if union is None:
        return readings
    sides = {r.value for r in readings if r.value in union.sides}
    out = []
    for r in readings:
        if r.value == union.none_of:
            named = union.sides_named(r.clause.text)
            if len(named) == 1 and sides - named:
                continue
        out.append(r)
    return out

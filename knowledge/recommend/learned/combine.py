"""A message read by the rules and the learned clause heads together, with a confidence the user sees.

Order of work, and why:

1. **Rules first** (:func:`~knowledge.recommend.textual.profile_from_text`): entity names are
   where rules are right (cloud and provider names, frameworks, device counts to scale,
   durations to optimization time), and their context cues already drop "not on GCP".
2. **Clauses and heads**: the message is cut into clauses (:mod:`.clauses`), each embedded by
   the shipped model with its fine-tuned top layers (:mod:`.tuning`), and each field's head
   gives a value or "not stated" per clause.
3. **Modifiers as their own step**: a clause the modifier head reads as hedged, planned, past,
   someone else's, or that asks a question, may not set a field: at most it asks. A negation
   is read by each field's head instead ("the model doesn't change much" is rarely,
   :data:`~.data.GATING_MODIFIERS`); the rules' own cues still drop "not on GCP".
4. **Combination**: the heads only fill fields the rules left open (letting them overrule a
   rule never helped on held-out data), except where the rules cannot speak: a field's own
   "we do not know" answer read in the clause a rule matched (:func:`_said_unknown`). Per
   field, with the thresholds chosen on the validation split: *high* sets the field (its
   clause is the evidence), *medium* asks a yes/no confirmation ("It sounds like you are on
   Google Cloud: right?"), *low* leaves it open. Two clauses confidently saying different
   values are a question, never a pick.

``mode`` gives the ablation's three variants: ``rules``, ``heads`` (no rules at all) and
``combined`` (the default).
"""

from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from knowledge.recommend.context import ASKING_OPENING
from knowledge.recommend.extraction import Confirmation, Extraction, FieldEvidence
from knowledge.recommend.learned.clauses import Clause, clause_at, split_clauses
from knowledge.recommend.learned.data import DATA_DIR, GATING_MODIFIERS
from knowledge.recommend.learned.reader import ClauseReader, Reading
from knowledge.recommend.learned.unions import PLAIN_BELOW, UNIONS, WHOLES, read_unions, without_one_side_denials
from knowledge.recommend.profile import FIELD_VALUES, SAID_UNKNOWN, UNKNOWN, is_answer
from knowledge.recommend.textual import MAX_TEXT_CHARS, counts_no_devices, profile_from_text

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

__all__ = ["Mode", "MODES", "ClauseReader", "extract_message", "field_readings", "sounds_like", "SOUNDS_LIKE_FILE"]

Mode = Literal["rules", "heads", "combined"]
MODES: tuple[Mode, ...] = ("rules", "heads", "combined")
SOUNDS_LIKE_FILE = DATA_DIR / "sounds_like.toml"
#: modifiers that are how a don't-know answer is said, not a reason to doubt it
_UNKNOWN_FORMS = ("hedge",)
#: where a sentence stops (its "?" says whether a clause opening with an asking word is asked)
_SENTENCE_STOP = re.compile(r"[.!?;\n]")


@lru_cache(maxsize=1)
def _phrases() -> dict[str, dict[str, str]]:
    table = tomllib.loads(SOUNDS_LIKE_FILE.read_text(encoding="utf-8"))
    for name, values in FIELD_VALUES.items():
        missing = [v for v in values if is_answer(name, v) and not str(table.get(name, {}).get(v, "")).strip()]
        if missing:
            raise ValueError(f"{SOUNDS_LIKE_FILE.name}: no phrase for {name} = {', '.join(missing)}")
    return {f: {v: str(p) for v, p in vs.items()} for f, vs in table.items()}


def sounds_like(field: str, value: str) -> str:
    """The yes/no question of a medium-confidence reading."""
    return f"It sounds like {_phrases()[field][value]}: right?"


def _is_question(text: str, clause: Clause) -> bool:
    """The clause asks: it ends its sentence's "?", or it opens a question that goes on after a
    comma ("would JAX on GCP be faster for us, or should we stay put?")."""
    rest = text[clause.end: clause.end + 3].lstrip()
    if rest.startswith("?") or clause.text.rstrip().endswith("?"):
        return True
    if ASKING_OPENING.match(clause.text) is None:
        return False
    stop = _SENTENCE_STOP.search(text, clause.end)
    return stop is not None and stop.group() == "?"


def _predict(clauses: list[Clause], reader: ClauseReader) -> dict[str, "np.ndarray"]:
    """Every head's probabilities for every clause (one encoding of the message's clauses)."""
    return reader.heads.predict(reader.encode([c.text for c in clauses]))


def gated_clauses(text: str, clauses: list[Clause], reader: ClauseReader, probs: dict[str, "np.ndarray"]) -> list[bool]:
    """Per clause: does a modifier (hedge, plan, past, someone else's) or a question gate what it says?"""
    # the tuned modifier head reads the clause in context; the rules' cue word lists are not
    # used here: a cue anywhere in a long clause gated readings it did not touch (fm8-fm11:
    # 5-13 more fields each, precision unchanged, without them)
    p_gate = reader.heads.gate_mass(probs)
    gate = reader.heads.manifest.modifier_gate
    return [bool(p_gate[i] >= gate) or _is_question(text, clause) for i, clause in enumerate(clauses)]


def field_readings(
    text: str, clauses: list[Clause], reader: ClauseReader, probs: dict[str, "np.ndarray"] | None = None,
    gated_at: list[bool] | None = None,
) -> list[Reading]:
    """Each clause's best value for each field, with whether a modifier gates it (``gated_at``, when known)."""
    probs = probs if probs is not None else _predict(clauses, reader)
    gate = reader.heads.manifest.modifier_gate
    gated_at = gated_at if gated_at is not None else gated_clauses(text, clauses, reader, probs)
    # "no idea whether storage keeps up" is hedged by its nature: for a field's own don't-know
    # answer (SAID_UNKNOWN) a hedge is its form, and only plan, past, someone else's or a
    # question gate it (with them, each retraining's modifier gate decided whether it was read)
    p_other = reader.heads.gate_mass(probs, tuple(k for k in GATING_MODIFIERS if k not in _UNKNOWN_FORMS))
    out = []
    for i, clause in enumerate(clauses):
        asked = _is_question(text, clause)
        gated = gated_at[i]
        for name in FIELD_VALUES:
            head = reader.heads.by_name[name]
            row = probs[name][i]
            best = int(row[1:].argmax()) + 1
            value = head.classes[best]
            said_unknown = value == UNKNOWN and name in SAID_UNKNOWN
            out.append(Reading(name, value, float(row[best]), clause,
                                (bool(p_other[i] >= gate) or asked) if said_unknown else gated))
    return out


def _evidence(r: Reading) -> FieldEvidence:
    return FieldEvidence(field=r.field, value=r.value, span=(r.clause.start, r.clause.end),
                         evidence=r.clause.text, confidence=round(r.p, 3))


def _unblocked(out: Extraction, readings: list[Reading], name: str) -> list[Reading]:
    """The heads' readings of ``name`` outside every clause where a mention of it was dropped.

    A clause where the rules named this field's value and their context cues dropped it ("we
    used to be on Azure", "nobody has written JAX"), or where a mention yielded to a plain one
    (:func:`_settle`), may not set the field by other means: not by filling, not by answering
    the rules' question. A drop that rests only on the sentence naming someone else (``doubted``:
    "trained on a single 4090 under someone's desk") does not block: the heads' modifier gate reads
    whether the clause is someone else's. What a drop refuses is the value it named: a reading of
    another value in that clause stands ("nothing is in production" drops production, and the heads
    read exploration), unless the rules' drop named no value there.
    """
    blocking = [d for d in out.dropped if d not in out.doubted]
    return [r for r in readings if r.field == name and not _refused(out, [s for f, s, _ in blocking if f == name
                                                                           and r.clause.start <= s < r.clause.end], r)]


def _refused(out: Extraction, starts: list[int], r: Reading) -> bool:
    """Whether the drops at ``starts`` (in the reading's clause) refuse its value: they named it, or
    named no value, or it is a union's "none of them" and the message denied only some of its sides
    ("nobody here knows CUDA" says nothing about XLA, so it is not "neither"; "nobody really knows
    CUDA anymore, and we never touched XLA" denies both, each in its own clause)."""
    if not starts:
        return False
    named = {v for f, v, s in out.denied if f == r.field and s in starts}
    if not named or r.value in named:
        return True
    union = next((u for u in UNIONS if u.field == r.field), None)
    if union is None or r.value != union.none_of:
        return False
    doubted = {s for f, s, _ in out.doubted if f == r.field}
    denied = {side for f, v, s in out.denied if f == r.field and s not in doubted for side in union.sides_of(v)}
    # or the clause names every side, though the rules found a denial of only one ("we don't
    # really know xla or cuda", "no experience with CUDA programming or XLA"); not only its
    # sentence ("a few folks have done some cuda hacking but nobody knows XLA at all")
    return not (set(union.sides) <= denied or all(side in r.clause.text.lower() for side in union.sides))


def _fill(out: Extraction, readings: list[Reading], reader: ClauseReader) -> None:
    """Set (high), ask (medium) or leave open (low) each field nobody has set or asked about yet."""
    asked = {c.field for c in out.confirmations}
    for name in FIELD_VALUES:
        if name in out.fields or name in asked:
            continue
        limits = reader.heads.manifest.thresholds[name]
        mine = _unblocked(out, readings, name)
        high = without_one_side_denials(name, [r for r in mine if r.p >= limits.high and not r.gated])
        values = sorted({r.value for r in high})
        if len(values) > 1:
            first = min(high, key=lambda r: r.clause.start)
            out.confirmations.append(Confirmation(
                field=name, value=first.value, span=(first.clause.start, first.clause.end), evidence=first.clause.text,
                question=f"Which is it for {name.replace('_', ' ')}: {' or '.join(values)}?"))
        elif high:
            out.fields[name] = _evidence(max(high, key=lambda r: r.p))
        else:
            # a gated clause is demoted one step: only what would have been set is asked
            medium = [r for r in mine if r.p >= (limits.high if r.gated else limits.medium)]
            if medium:
                best = max(medium, key=lambda r: r.p)
                out.confirmations.append(Confirmation(
                    field=name, value=best.value, span=(best.clause.start, best.clause.end), evidence=best.clause.text,
                    question=sounds_like(name, best.value), yes_no=True))


def _yield(out: Extraction, mentions: list[tuple[str, str, int, int]]) -> None:
    """Record (field, value, start, end) mentions the heads read as not the team's now like the
    rules' own drops, so no later step (the heads, the reading's contradiction check) revives them."""
    out.dropped.extend((f, start, end) for f, _, start, end in mentions)
    out.denied.extend((f, value, start) for f, value, start, _ in mentions)


def _settle(text: str, out: Extraction, clauses: list[Clause], p_mod: "np.ndarray") -> None:
    """Answer a "Which is it" question of the rules when only one of its values is said plainly.

    "we were on-prem till last year but now it's all GKE", "our sister team uses pytorch on AWS
    ... we're all GCP": the rules' context cues are word lists and miss many ways of saying past,
    planned or someone else's, so both values reach the question. The learned modifier head
    reads each mention's clause; a value every mention of which reads as modified yields to the
    one value said plainly. Two plain values ("we're on AWS. we're on GCP.") stay a question.
    """
    for name in sorted({c[0] for c in out.conflicts}):
        if name in out.fields:
            continue
        plainest: dict[str, tuple[float, tuple[str, str, int, int, float]]] = {}
        for hit in (c for c in out.conflicts if c[0] == name):
            at = clause_at(clauses, hit[2])
            p = float(p_mod[at]) if at is not None else 0.0  # outside every clause: taken as plain
            if hit[1] not in plainest or p < plainest[hit[1]][0]:
                plainest[hit[1]] = (p, hit)
        plain = [v for v, (p, _) in plainest.items() if p < PLAIN_BELOW]
        if len(plain) != 1:
            continue
        p, (_, value, start, end, confidence) = plainest[plain[0]]
        # the mentions that yielded were read as not about the team now: recorded like the rules'
        # own drops, so no later step (the heads, the reading's contradiction check) revives them
        _yield(out, [(name, h[1], h[2], h[3]) for h in out.conflicts if h[0] == name and h[1] != value])
        out.fields[name] = FieldEvidence(field=name, value=value, span=(start, end), evidence=text[start:end],
                                         confidence=round(min(confidence, 1.0 - p), 3))
        out.confirmations = [c for c in out.confirmations if c.field != name]


def _said_unknown(out: Extraction, clauses: list[Clause], readings: list[Reading], reader: ClauseReader) -> None:
    """A rule's value yields to "we do not know" read by the heads in the very clause it matched.

    The rules have no words for a field's own "unknown" answer (:data:`SAID_UNKNOWN`), so "no
    clue if disk I/O keeps up, haven't checked" gave the rules keeps_up from "keeps up". When the
    heads read that clause as the unknown answer at their high threshold, the clause says the
    team does not know, and that is what is set (its clause is the evidence).
    """
    for name in sorted(SAID_UNKNOWN):
        held = out.fields.get(name)
        at = None if held is None or held.value == UNKNOWN else clause_at(clauses, held.span[0])
        if at is None:
            continue
        limit = reader.heads.manifest.thresholds[name].high
        for r in readings:
            if r.field == name and r.clause == clauses[at] and r.value == UNKNOWN and r.p >= limit and not r.gated:
                out.fields[name] = _evidence(r)
                break


def _corroborate(
    out: Extraction, readings: list[Reading], reader: ClauseReader, clauses: list[Clause], p_mod: "np.ndarray",
) -> None:
    """Answer the rules' own question when the heads, reading plainly and surely, say one of its values.

    The rules ask rather than set when a cue is weak ("512 GPUs" might be massive) or two values
    are named ("pytorch ... jax for side research"). Two readers that work differently (word
    lists and clause meaning) agreeing is the evidence a question was waiting for: the value
    the heads read at their high threshold in a clause no modifier gates, when it is one the
    rules offered and the heads read no other value plainly even at their medium threshold, is
    set, on the heads' clause. When the rules offered two values, the value that means both
    ("both", "multi_cloud") is offered too. A question whose every mention the modifier head reads
    as not plain takes any value the heads read so.
    """
    for question in list(out.confirmations):
        name = question.field
        if name in out.fields:
            continue
        offered = {question.value} | {h[1] for h in out.conflicts if h[0] == name}
        # two values named are also the value that means both: "we train on GCP and serve from AWS"
        # is a multi-cloud team when the heads surely read the clause so
        if len(offered) > 1 and name in WHOLES and not _a_list_of_clouds(out, name):
            offered.add(WHOLES[name])
        limits = reader.heads.manifest.thresholds[name]
        plain = [r for r in _unblocked(out, readings, name) if r.p >= limits.medium and not r.gated]
        sure = [r for r in plain if r.p >= limits.high]
        # a rival value the heads also read plainly, even only at their medium threshold ("we're
        # on AWS. we're on GCP." with GCP at 0.6), is evidence for the question, not against it
        # a question asked only of mentions the modifier head reads as not plain ("Last year we were
        # heavy on custom kernels, but we ripped them all out ... now it's all stock ops") is about
        # another time, team or plan: a value the heads read surely and plainly answers it, offered or not
        starts = [question.span[0]] + [h[2] for h in out.conflicts if h[0] == name]
        aside = all((at := clause_at(clauses, st)) is not None and float(p_mod[at]) >= PLAIN_BELOW for st in starts)
        if not sure or len({r.value for r in plain}) > 1 or (sure[0].value not in offered and not aside):
            continue
        chosen = max(sure, key=lambda r: r.p)
        out.fields[name] = _evidence(chosen)
        if aside and chosen.value != question.value:
            _yield(out, [(name, question.value, question.span[0], question.span[1])])
        if chosen.value != WHOLES.get(name):
            # a rival mention in a clause the modifier head reads as not plain yielded, as in _settle:
            # recorded like the rules' drops, or the reading's contradiction check, which re-reads each
            # sentence with the rules alone, asked again ("our own racks now. GCP was the old setup.");
            # a plain rival ("inference is served out of AWS") stays for that check to weigh
            _yield(out, [(name, h[1], h[2], h[3]) for h in out.conflicts if h[0] == name and h[1] != chosen.value
                         and (at := clause_at(clauses, h[2])) is not None and float(p_mod[at]) >= PLAIN_BELOW])
        out.confirmations = [c for c in out.confirmations if c.field != name]


def _a_list_of_clouds(out: Extraction, name: str) -> bool:
    """More clouds named than a multi-cloud team names (``[limits] multi_cloud_up_to`` of
    ``message_checks.toml``): "AWS, Azure, GCP, Oracle Cloud, CoreWeave, Nebius, RunPod and
    Paperspace" reads like a list of options or credits, which the reading asks about; the heads'
    sure "multi-cloud" for it must not settle that question."""
    from knowledge.recommend.message_checks import load_checks

    return name == "cloud" and sum(h[0] == "cloud" for h in out.conflicts) > load_checks().limits.multi_cloud_up_to


def extract_message(text: str, reader: ClauseReader | None, mode: Mode = "combined") -> Extraction:
    """Understand a whole message; without a reader (no encoder or heads) this is the rules alone."""
    if mode == "rules" or reader is None:
        return profile_from_text(text)
    out = profile_from_text(text) if mode == "combined" else Extraction()
    clauses = split_clauses((text or "")[:MAX_TEXT_CHARS])
    if clauses:
        probs = _predict(clauses, reader)
        p_mod = 1.0 - probs["modifier"][:, 0]
        if out.conflicts:
            _settle(text, out, clauses, p_mod)
        gated_at = gated_clauses(text, clauses, reader, probs)
        out.modified = [(c.start, c.end) for c, gated in zip(clauses, gated_at) if gated]
        # a clause whose numbers count no devices ("8 ML engineers", "TF 1.x") says nothing of scale
        readings = [r for r in field_readings(text, clauses, reader, probs, gated_at)
                    if not (r.field == "scale" and counts_no_devices(r.clause.text))]
        if mode == "combined":
            _said_unknown(out, clauses, readings, reader)
            _corroborate(out, readings, reader, clauses, p_mod)
            read_unions(text, out, clauses, p_mod, readings, reader)
        _fill(out, readings, reader)
    return out

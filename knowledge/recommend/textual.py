"""``profile_from_text``: a free-text answer or a whole message in, profile fields out.

The vocabulary is data (``vocabulary.toml``, validated with pydantic): patterns mapped to
answers, plus counts ("8 GPUs", "256 chips"). Every field comes with its evidence span and
a confidence. What is ambiguous is never guessed: it becomes a confirmation question
("Did you mean critical custom kernels ...?") and the field stays unset. Rules of thumb:

* a longer match wins over a shorter one inside it ("no custom kernels" over "custom kernels");
* two different answers to one field are a question, not a pick (except "training" and
  "inference" together, which *is* ``both``, and clouds named beside "multi-cloud", which
  are its members);
* ``asked_only`` patterns ("every week", "2 weeks", "none") count only when the text
  answers that field's question: the intake passes ``field=``;
* a labelled line of a pasted form ("stage: research", "opt_budget=weeks") answers its
  label's field (the ``[[key]]`` table): its value is read as that intake answer;
* the words around a match decide whether it states the team's situation at all ("not on
  GCP", "thinking about JAX", "is FlashAttention available on TPU?"): see
  :mod:`knowledge.recommend.context`. A hedged match ("not sure if we use FlashAttention")
  becomes a question.
"""

from __future__ import annotations

import re
import tomllib
from functools import cache, lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from common.errors import RuleError
from common.validation import one_line_errors
from knowledge.recommend.context import CompiledContext, ContextCues, Verdict
from knowledge.recommend.counts import Counts, Hit, count_hits, count_patterns, not_devices_pattern
from knowledge.recommend.extraction import Confirmation, Extraction, FieldEvidence
from knowledge.recommend.profile import FIELD_VALUES, is_answer
from knowledge.spelling import respell

__all__ = ["VOCABULARY_FILE", "profile_from_text", "load_vocabulary", "counts_no_devices",
           "states_the_team"]

VOCABULARY_FILE = Path(__file__).resolve().parent / "vocabulary.toml"
#: Longer text is cut before matching: the extractor is for messages, not documents.
MAX_TEXT_CHARS = 4000


@cache
def _vocabulary_regex(pattern: str) -> re.Pattern[str]:
    """A vocabulary pattern compiled as it is matched (case-insensitive), once per process.

    Validating the vocabulary compiles every pattern to reject a broken one, and matching needs
    them compiled: ~500 patterns, ~0.15 s of a cold ``recommend --text`` each time, and the
    ``re`` module's own cache (512 entries) is too small to hold them between the two."""
    return re.compile(pattern, re.IGNORECASE)


class _Patterns(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    field: str
    value: str
    patterns: tuple[str, ...] = Field(min_length=1)

    @field_validator("patterns")
    @classmethod
    def _compiles(cls, patterns: tuple[str, ...]) -> tuple[str, ...]:
        for p in patterns:
            try:
                _vocabulary_regex(p)
            except re.error as exc:
                raise ValueError(f"pattern {p!r} does not compile: {exc}") from None
        return patterns

    def check(self) -> None:
        # "unknown" is an answer only where saying it answers the field (data_pipeline: "never measured")
        if self.field not in FIELD_VALUES or self.value not in FIELD_VALUES[self.field] or not is_answer(self.field, self.value):
            raise ValueError(f"{self.field} = {self.value} is not a profile answer")


class Term(_Patterns):
    confidence: float = Field(gt=0.0, le=1.0)
    asked_only: bool = False
    #: Fields whose matches inside this one are part of it, not statements of their own:
    #: "strong in both CUDA and JAX" is the team's skill, not its framework.
    shadows: tuple[str, ...] = ()
    #: The value said as the only one ("inference only"; kernels "we could live without"): other values
    #: of the field said elsewhere in the message ("a fine-tuned llama"; "hand-written CUDA") are not
    #: the team's now, so they are dropped rather than joined ("both") or preferred (critical).
    exclusive: bool = False

    def check(self) -> None:
        super().check()
        if not set(self.shadows) <= set(FIELD_VALUES):
            raise ValueError(f"{self.field} = {self.value}: shadows {self.shadows} are not profile fields")


class Confirm(_Patterns):
    question: str = Field(min_length=1)
    #: The phrase competes with a set answer of another value ("a single 4090, then train at
    #: scale"): the field is unset and asked. Off for phrases that ask something else (can you move?).
    contests: bool = False


class Key(BaseModel):
    """A form's label ("stage:", "opt_budget=", "- kernels:"): the line's value answers ``field``'s question.

    People paste their situation as a list of labels and short values ("arch: settled",
    "budget for compiler tuning: zero"); a value alone means little ("zero" of what?), but
    under its label it is an intake answer, read with that field's answer-only words too."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    field: str
    #: a regular expression searched in the label (lower-cased); the first key that matches wins
    names: str = Field(min_length=1)
    #: fields whose matches inside the value are part of this answer ("team: ex-Google JAX people");
    #: others stay ("cluster: 512 H100s on CoreWeave" names the cloud too)
    shadows: tuple[str, ...] = ()

    def check(self) -> None:
        re.compile(self.names)
        if self.field not in FIELD_VALUES or not set(self.shadows) <= set(FIELD_VALUES):
            raise ValueError(f"key {self.names!r}: {self.field} or its shadows are not profile fields")


class Includes(BaseModel):
    """One ``[[includes]]`` entry: a field's ``value`` says more than ``within`` and includes it, so
    a message saying both ("multi-node, 2048 H100s per run") means ``value``, not a conflict."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    field: str
    value: str
    within: tuple[str, ...] = Field(min_length=1)

    def check(self) -> None:
        values = FIELD_VALUES.get(self.field, ())
        if self.value not in values or not set(self.within) <= set(values) or self.value in self.within:
            raise ValueError(f"includes {self.field}={self.value}: not a value of the field, or it includes itself")


class Vocabulary(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    counts: Counts
    numbers: dict[str, int]
    #: words that multiply the number before them: "a couple thousand", "three hundred"
    multipliers: dict[str, int] = {}
    context: ContextCues
    term: tuple[Term, ...]
    confirm: tuple[Confirm, ...] = ()
    key: tuple[Key, ...] = ()
    includes: tuple[Includes, ...] = ()


@lru_cache(maxsize=4)
def load_vocabulary(path: Path = VOCABULARY_FILE) -> Vocabulary:
    """Parse and validate the vocabulary once per process; a broken file is a one-line RuleError."""
    try:
        vocab = Vocabulary.model_validate(tomllib.loads(path.read_text(encoding="utf-8")))
        for entry in (*vocab.term, *vocab.confirm):
            entry.check()
        for key in vocab.key:
            key.check()
        for included in vocab.includes:
            included.check()
        re.compile(vocab.counts.units)
        for pattern in (vocab.counts.node_units, vocab.counts.pod_units, vocab.counts.not_between, vocab.counts.slice):
            re.compile(pattern)
    except ValidationError as exc:
        raise RuleError(f"{path.name}: {one_line_errors(exc)}") from None
    except (OSError, tomllib.TOMLDecodeError, ValueError, re.error) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise RuleError(f"{path.name}: {first}") from None
    return vocab


#: terms, confirmations, count patterns, context cues, and the people-count pattern
_Compiled = tuple[
    list[tuple[Term, re.Pattern[str]]], list[tuple[Confirm, re.Pattern[str]]], list[re.Pattern[str]], CompiledContext,
    re.Pattern[str],
]
#: Compiled patterns per vocabulary object (a vocabulary holds a dict, so it cannot be an lru_cache key).
_COMPILED: dict[int, tuple[Vocabulary, _Compiled]] = {}


def _compiled(vocab: Vocabulary) -> _Compiled:
    cached = _COMPILED.get(id(vocab))
    if cached is not None and cached[0] is vocab:
        return cached[1]
    compiled = _compile(vocab)
    _COMPILED[id(vocab)] = (vocab, compiled)
    return compiled


def _compile(vocab: Vocabulary) -> _Compiled:
    terms = [(t, _vocabulary_regex(p)) for t in vocab.term for p in t.patterns]
    confirms = [(c, _vocabulary_regex(p)) for c in vocab.confirm for p in c.patterns]
    counts = count_patterns(vocab.counts, vocab.numbers, vocab.multipliers)
    return terms, confirms, counts, CompiledContext.build(vocab.context), not_devices_pattern(vocab.counts, vocab.numbers)


def _inside(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return b[0] <= a[0] and a[1] <= b[1] and a != b


def _others_than_the_only(found: list[Hit], verdicts: list[Verdict], only: set[Hit]) -> list[Verdict]:
    """Drop every kept match of another value of a field that a kept match says is its only value.

    "inference only. llama finetune.": the fine-tune names the model served, and "the current scope
    is inference only" after "training is complete" takes training back; without this, both were
    joined into workload "both" (fm73-05, fm75-08). Two different "only" values contradict each
    other and are left to the usual question."""
    sole: dict[str, set[str]] = {}
    for h, v in zip(found, verdicts):
        if v == "keep" and h in only:
            sole.setdefault(h[0], set()).add(h[1])
    if not sole:
        return verdicts
    return [
        "drop" if v == "keep" and len(sole.get(h[0], ())) == 1 and h[1] not in sole[h[0]] else v
        for h, v in zip(found, verdicts)
    ]


def _resolve(field: str, hits: list[Hit], includes: tuple[Includes, ...] = ()) -> tuple[Hit | None, bool]:
    """One answer for a field, or (None, True) when its matches disagree."""
    for entry in includes:
        if entry.field == field and entry.value in {h[1] for h in hits}:
            hits = [h for h in hits if h[1] not in entry.within]
    kept = [h for h in hits if not any(_inside((h[2], h[3]), (o[2], o[3])) for o in hits)]
    values = {h[1] for h in kept}
    if field == "workload" and {"training", "inference"} <= values:
        values = {"both"} | (values - {"training", "inference"})
        if values == {"both"}:
            start, end = min(h[2] for h in kept), max(h[3] for h in kept)
            return ("workload", "both", start, end, min(h[4] for h in kept)), False
    if field == "team_expertise" and len(values) > 1 and values <= {"cuda", "xla", "both"} and ({"cuda", "xla"} <= values or "both" in values):
        # "two CUDA folks and two ex-Google JAX people": a team strong in each is strong in both
        # ("the team knows CUDA and XLA": its mention of CUDA alone is part of that)
        start, end = min(h[2] for h in kept), max(h[3] for h in kept)
        return ("team_expertise", "both", start, end, min(h[4] for h in kept)), False
    if len(values) > 1:
        return None, True
    best = max(kept, key=lambda h: (h[3] - h[2], h[4]))
    return best, False


#: "stage: research", "- opt_budget = weeks", "• devices: 1× T4", "2) Hosting: GKE", "custom ops ->
#: none", "kernels - stock ops only": one label and its value per line.
_KEYED_LINE = re.compile(r"^[ \t]*(?:[-*\u2022>]\s*|\d{1,2}[.)]\s+)?(?P<key>[A-Za-z][\w /&()-]{0,40}?)[ \t]*(?:[:=]|->|=>|\u2192|[ \t][-\u2013\u2014][ \t])[ \t]*(?P<value>[^\n]*\S)",
                         re.MULTILINE)
#: "- custom ops? a few Pallas kernels", "- on prem? no, 100% Google Cloud": a list of short
#: questions, each answered on its own line (a bullet, so a sentence with a "?" is not one)
_ASKED_LINE = re.compile(r"^[ \t]*[-*\u2022>]\s*(?P<key>[A-Za-z][\w /&()-]{0,40}?)[ \t]*\?[ \t]+(?P<value>[^\n]*\S)", re.MULTILINE)


#: (but "where we are:" is a label, the project's phase: "- where we are: early, trying things out")
_PROSE = re.compile(r"^(?!where we(?:['\u2019]re| are)(?: at| now)?\s*$).*\b(?:we|our|my|i|us|they|their|some|is|are)\b")


def _keyed(text: str, vocab: Vocabulary, context: CompiledContext) -> list[tuple[FieldEvidence | Confirmation, tuple[int, int], tuple[str, ...]]]:
    """Each labelled line's answer (or its question) for the label's field, its value's span and shadows."""
    out: list[tuple[FieldEvidence | Confirmation, tuple[int, int], tuple[str, ...]]] = []
    for m in (*_KEYED_LINE.finditer(text), *_ASKED_LINE.finditer(text)):
        label = m.group("key").lower()
        if _PROSE.search(label):  # "our perf people split: some ...": a sentence with a colon, not a form
            continue
        if context.retracted(text, m.end("value")):  # "cloud: aws\n(correction: we left aws in march ...)"
            continue
        key = next((k for k in vocab.key if re.search(k.names, label)), None)
        if key is None:
            continue
        start = m.start("value")
        read = profile_from_text(m.group("value"), field=key.field, vocabulary=vocab)
        found: FieldEvidence | Confirmation | None = read.fields.get(key.field) or next(iter(read.confirmations), None)
        if found is not None:
            shifted = found.model_copy(update={"span": (found.span[0] + start, found.span[1] + start)})
            out.append((shifted, (start, m.end("value")), key.shadows))
    return out


def _question(field: str, value: str, evidence: str) -> str:
    return f"Did you mean {field.replace('_', ' ')}: {value.replace('_', ' ')}? (you wrote \"{evidence}\")"


def counts_no_devices(text: str, vocabulary: Vocabulary | None = None) -> bool:
    """Whether ``text`` has a number and none of its numbers counts devices ("Context: 8 ML engineers",
    "it's all TF 1.x still"): a reader of meaning takes such a number for devices (the heads read
    "TF 1.x" as one device at 0.98), and scale is said by device counts."""
    vocab = vocabulary or load_vocabulary()
    _, _, count, _, people = _compiled(vocab)
    return people.search(text) is not None and not count_hits(text, vocab.counts, vocab.numbers, vocab.multipliers, count)


def states_the_team(text: str, start: int, end: int, vocabulary: Vocabulary | None = None) -> bool:
    """Whether the words at ``text[start:end]`` say the team's own situation now, by the same
    context cues as every extracted value (not negated, planned, asked, past or someone else's)."""
    _, _, _, context, _ = _compiled(vocabulary or load_vocabulary())
    return context.judge(text, start, end, answer=False) == "keep"


def profile_from_text(text: str, field: str | None = None, vocabulary: Vocabulary | None = None) -> Extraction:
    """Understand ``text``; with ``field`` (an intake answer) only that field, asked-only words included.

    The rules read the text with its slips of their own words respelt ("a singel 4090"), and every
    span is mapped back, so each field shows the user's own words (knowledge.spelling).
    """
    text = (text or "")[:MAX_TEXT_CHARS]
    respelt = respell(text)
    return respelt.restore(_read(respelt.text, field, vocabulary or load_vocabulary()))


def _read(text: str, field: str | None, vocab: Vocabulary) -> Extraction:
    terms, confirms, count, context, _ = _compiled(vocab)
    found: list[Hit] = [] if field not in (None, "scale") else count_hits(text, vocab.counts, vocab.numbers, vocab.multipliers, count)
    shadowing: list[tuple[int, int, tuple[str, ...]]] = []
    keyed = _keyed(text, vocab, context) if field is None else []
    shadowing.extend((s, e, shadows) for _, (s, e), shadows in keyed)
    only: set[Hit] = set()
    for term, pattern in terms:
        if (field is not None and term.field != field) or (term.asked_only and term.field != field):
            continue
        for m in pattern.finditer(text):
            found.append((term.field, term.value, m.start(), m.end(), term.confidence))
            if term.shadows:
                shadowing.append((m.start(), m.end(), term.shadows))
            if term.exclusive:
                only.add(found[-1])
    found = [h for h in found if not any(h[0] in f and s <= h[2] and h[3] <= e for s, e, f in shadowing)]
    answer = field is not None
    verdicts = [context.judge(text, h[2], h[3], answer, field=h[0]) for h in found]
    found, verdicts = context.said_unknown(text, found, verdicts)
    verdicts = _others_than_the_only(found, verdicts, only)
    hits = [h for h, v in zip(found, verdicts) if v == "keep"]
    hedged = [h for h, v in zip(found, verdicts) if v == "ask"]
    out = Extraction(dropped=[(h[0], h[2], h[3]) for h, v in zip(found, verdicts) if v == "drop"],
                     denied=[(h[0], h[1], h[2]) for h, v in zip(found, verdicts) if v == "drop"])
    out.doubted = [(h[0], h[2], h[3]) for h, v in zip(found, verdicts)
                   if v == "drop" and context.judge(text, h[2], h[3], answer, others=False, field=h[0]) == "keep"]
    conflicted: set[str] = set()
    for name in FIELD_VALUES:
        mine = [h for h in hits if h[0] == name]
        if not mine:
            continue
        best, conflict = _resolve(name, mine, vocab.includes)
        if conflict:
            conflicted.add(name)
        elif best is not None:
            out.stated.extend(mine)
            out.fields[name] = FieldEvidence(field=name, value=best[1], span=(best[2], best[3]),
                                             evidence=text[best[2]:best[3]], confidence=best[4])
    spans = [(h[2], h[3]) for h in found]
    for confirm, pattern in confirms:
        if field is not None and confirm.field != field:
            continue
        set_to = out.fields.get(confirm.field)
        if set_to is not None and (not confirm.contests or set_to.value == confirm.value):
            continue
        for m in pattern.finditer(text):
            if any(s[0] <= m.start() and m.end() <= s[1] for s in spans):
                continue
            verdict = context.judge(text, m.start(), m.end(), answer, confirm=True, field=confirm.field)
            # a hedged or planned mention ("might go hybrid with GCP later") does not unsettle a
            # field said plainly ("we're on-prem"): it may only ask about a field still open
            if verdict == "drop" or (verdict == "ask" and set_to is not None):
                continue
            out.fields.pop(confirm.field, None)
            if not any(c.field == confirm.field for c in out.confirmations):
                out.confirmations.append(Confirmation(field=confirm.field, value=confirm.value, span=(m.start(), m.end()),
                                                      evidence=m.group(0), question=confirm.question))
    for h in hedged:  # "not sure if we use FlashAttention": asked, never assumed
        if h[0] not in out.fields and not any(c.field == h[0] for c in out.confirmations):
            evidence = text[h[2]:h[3]]
            out.confirmations.append(Confirmation(field=h[0], value=h[1], span=(h[2], h[3]), evidence=evidence,
                                                  question=_question(h[0], h[1], evidence)))
    for labelled, _, _ in keyed:  # a labelled line answers its field's question: it overrules the free reading
        out.confirmations = [c for c in out.confirmations if c.field != labelled.field]
        out.stated = [h for h in out.stated if h[0] != labelled.field]
        conflicted.discard(labelled.field)
        if isinstance(labelled, FieldEvidence):
            out.fields[labelled.field] = labelled
        else:
            out.fields.pop(labelled.field, None)
            out.confirmations.append(labelled)
    for name in sorted(conflicted - set(out.fields)):
        values = sorted({h[1] for h in hits if h[0] == name})
        # recorded even when the field is already asked about ("might go hybrid"): a reader that tells
        # a plain mention from a planned one may settle the field and drop both questions
        out.conflicts.extend(h for h in hits if h[0] == name)
        if not any(c.field == name for c in out.confirmations):
            first = min((h for h in hits if h[0] == name), key=lambda h: h[2])
            out.confirmations.append(Confirmation(
                field=name, value=values[0], span=(first[2], first[3]), evidence=text[first[2]:first[3]],
                question=f"Which is it for {name.replace('_', ' ')}: {' or '.join(values)}?"))
    return out

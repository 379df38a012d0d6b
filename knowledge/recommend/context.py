"""Whether a vocabulary match states the team's situation, judged from the words around it.

A pattern finding "GCP" is not enough: "not on GCP", "we moved off AWS", "thinking about
JAX", "is FlashAttention available on TPU?" all name a value the team does not have. The
cue words are data (the ``[context]`` table of ``vocabulary.toml``); this module only says
how they apply:

* the cue must sit right before the match, in the same clause, with nothing but filler
  words between ("not really on GCP", "nobody on the team has ever used JAX"), or one
  coordinated item ("deciding between AWS and GCP");
* a negation ("not", "no longer", "moved off") or a hypothetical ("try", "move to",
  "considering") drops the match: the text does not state that value;
* a hedge ("not sure if", "might", "possibly") keeps it as a question: it is asked,
  never assumed; so does a value on its way out ("a Keras shop migrating to JAX");
* a sentence that names no one on the team ("we", "our", "I") and is a question or opens
  with the hardware ("TPUs are cheaper at scale.") describes the hardware, not the team:
  nothing in it counts; nor does one about someone else ("OpenAI serves on Azure", "my
  friend's startup trains on 512 TPUs", "I read that FlashAttention 3 is out"). In any
  question, the interrogative clause itself ("would JAX be faster for us?") states nothing;
  a statement before a question's asking tail ("training on GKE with 8 GPUs, is a TPU worth
  it?") is not a question (:data:`QUESTION_TAG`);
* a clause set in the past or elsewhere ("at my last job", "previously") counts for nothing.

Intake answers (``field`` given) answer a question about the team, so only the clause
cues apply to them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, field_validator

from knowledge.recommend.counts import Hit
from knowledge.recommend.profile import FIELD_VALUES, SAID_UNKNOWN, UNKNOWN

__all__ = ["ASKING_OPENING", "ContextCues", "CompiledContext", "Verdict", "QUESTION_TAG", "asking_tail"]

Verdict = Literal["keep", "drop", "ask"]
#: How far (characters) a cue and its filler words reach: a bound, so that a long message is
#: not searched from every match back to the start of a run-on clause.
REACH = 160

#: Ends a sentence: . ! ? or a newline (a dot inside "2.3" or "tf.keras" does not).
_SENTENCE_END = re.compile(r"[!?\n]+|\.(?=\s|$)|;")
#: The asking tail of a sentence that ends in "?" after a statement, from its comma or dash
#: (matched on the sentence without its "?"):
#: ", is a TPU worth a shot?", " - any thoughts?", ", should we look at TPUs or stay?". Messages
#: drop their subject ("training on gke with 8 gpus, is tpu worth it?"), so without this the
#: whole sentence read as a question and stated nothing. An opening question ("is a TPU worth
#: it for a model on 8 GPUs?") has no statement before its asking words and is left whole.
QUESTION_TAG = re.compile(
    r"(?:,|\s[-\u2013\u2014])\s+(?:(?:so|and|but|then|ok|now)\s+)?"
    r"(?:is|are|was|were|do|does|did|can|could|should|shall|would|will|what|which|how|why|where|when|who|"
    r"any|anything|thoughts|worth|maybe|perhaps|gpus?\s+or\s+tpus?|tpus?\s+or\s+gpus?)\b[^,?!.]*$",
    re.IGNORECASE,
)
#: A question from its first word ("would JAX on GCP be faster for us, or should we stay?"): what
#: its first clause names is asked about, not stated, and it has no statement before a tail.
ASKING_OPENING = re.compile(
    r"\s*(?:(?:so|and|but|ok|also|then)\s+)?(?:is|are|was|were|do|does|did|can|could|should|shall|would|will|"
    r"what|which|how|why|where|when|who|isn['\u2019]t|aren['\u2019]t|doesn['\u2019]t|wouldn['\u2019]t)\b",
    re.IGNORECASE,
)


def asking_tail(sentence: str) -> int | None:
    """Where the asking tail of a question begins (``sentence`` without its "?"), or None.

    A question that opens with an asking word has no statement before a tail and is asked whole;
    otherwise the tail is :data:`QUESTION_TAG`'s match ("training on gke with 8 gpus, is tpu worth
    it"). Shared by the rules' context cues and the clause splitter, so both cut at the same place."""
    if ASKING_OPENING.match(sentence) is not None:
        return None
    tag = QUESTION_TAG.search(sentence)
    return tag.start() if tag else None


#: A count bounded from below or above ("more than 2000 GPUs", "fewer than 8 chips"): a
#: quantity, not the comparison "than" marks elsewhere ("cost more than flexibility").
_BOUND = re.compile(r"\b(?:more|less|fewer)\s+than\s*~?\s*$", re.IGNORECASE)


def _quantity(before: str, match: str) -> bool:
    return match[:1].isdigit() and _BOUND.search(before) is not None


#: Ends a clause inside a sentence (an emoji is chat's punctuation: "nobody's profiled it 🤷 flax").
_CLAUSE_BREAK = re.compile(r"[,:()\[\]\u2600-\u27bf\U0001f300-\U0001faff]|\s[-\u2013\u2014]\s|\bbut\b|\bwhile\b|\bthough\b",
                           re.IGNORECASE)


class ContextCues(BaseModel):
    """The ``[context]`` table: regular expressions (case-insensitive) for each kind of cue."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    negation: str
    hypothetical: str
    hedge: str
    filler: str
    self_words: str
    self_pronouns: str
    others_subject: str
    generic_opening: str
    elsewhere: str
    negation_after: str
    transition_after: str
    others: str
    #: words a negation reaches through any verb to ("we do not currently employ any custom
    #: kernels"): "any" after a negation in the same clause is under it
    negative_scope: str = "any"
    #: a subject that denies its whole clause ("nobody in the lab knows XLA", "we don't have any
    #: people who know CUDA"): a match anywhere after it in the clause is denied
    negative_subject: str = r"(?!x)x"
    #: the fields it denies: things a team knows, uses or has. Not its states, which a negative
    #: subject often says ("nobody touches the model": rarely; "nobody can spend more than a day
    #: or two": days)
    negative_subject_fields: tuple[str, ...] = ()
    #: right after a match, across its comma: the writer takes it back and says another
    #: ("on aws, er azure actually", "AWS, well, mostly GCP now"), so the match is dropped
    correction_after: str = r"(?!x)x"
    #: right after a match, even across its sentence's end: a retraction strong enough to take
    #: back the sentence before it ("tensorflow. no wait, we ported to jax last month")
    retraction_after: str = r"(?!x)x"
    #: the loser of a preference ("rather keep options open than lock into something cheap",
    #: "instead of GCP"): a match right after it (its pattern says how many words) is dropped
    preferred_over: str = r"(?!x)x"
    #: a trial ("we tried JAX", "trying TPUs"): a candidate, like ``hypothetical``, except for the
    #: fields whose answer the trying itself is ("trying a new encoder variant every other day"
    #: is how often the architecture changes)
    trial: str = r"(?!x)x"
    trial_exempt_fields: tuple[str, ...] = ()
    #: a hedge that says the team does not know the fact ("we haven't measured whether storage keeps
    #: up", "no idea if the loader keeps up"): for a field whose "unknown" is an answer of its own
    #: (profile.SAID_UNKNOWN) that is the answer, not a question about the matched value
    not_known: str = r"(?!x)x"
    #: right after a match, across its comma: the writer doubts it ("maybe also AWS, not sure
    #: honestly", "procured from AWS, although this is not finalized"), so it is asked, not assumed
    hedge_after: str = r"(?!x)x"

    @field_validator("negative_subject_fields", "trial_exempt_fields")
    @classmethod
    def _fields(cls, names: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [n for n in names if n not in FIELD_VALUES]
        if unknown:
            raise ValueError(f"a context field list names no profile field: {', '.join(unknown)}")
        return names

    @field_validator("*")
    @classmethod
    def _compiles(cls, pattern: object) -> object:
        if not isinstance(pattern, str):
            return pattern  # the field lists (``negative_subject_fields``, ...): names, not patterns
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"context pattern {pattern!r} does not compile: {exc}") from None
        return pattern


@dataclass(frozen=True)
class CompiledContext:
    negation: re.Pattern[str]
    hypothetical: re.Pattern[str]
    hedge: re.Pattern[str]
    self_words: re.Pattern[str]
    self_pronouns: re.Pattern[str]
    others_subject: re.Pattern[str]
    generic_opening: re.Pattern[str]
    elsewhere: re.Pattern[str]
    negation_after: re.Pattern[str]
    transition_after: re.Pattern[str]
    others: re.Pattern[str]
    negative_subject: re.Pattern[str]
    negative_subject_fields: frozenset[str]
    correction_after: re.Pattern[str]
    retraction_after: re.Pattern[str]
    preferred_over: re.Pattern[str]
    trial: re.Pattern[str]
    trial_exempt_fields: frozenset[str]
    not_known: re.Pattern[str]
    hedge_after: re.Pattern[str]

    @classmethod
    def build(cls, cues: ContextCues) -> "CompiledContext":
        fill = rf"(?:\s+(?:{cues.filler}))*"

        def right_after(cue: str) -> re.Pattern[str]:
            # right after a match, across at most its comma, bracket or dash: "aws, er azure", "AWS (I think)"
            return re.compile(rf"^\s*[,(\u2014-]?\s*(?:{cue})\b", re.IGNORECASE)

        def right_before(cue: str) -> re.Pattern[str]:
            # the cue's reach spans a few coordinated items: "not on AWS or GCP", "between AWS and GCP", "not torch/tf/jax"
            return re.compile(rf"(?:{cue}){fill}(?:\s*[\w.+-]+(?:\s+[\w.+-]+)?(?:\s+(?:and|or|nor|vs\.?|versus)|\s*/){fill}){{0,3}}\s*$", re.IGNORECASE)

        # a negation, a few words of any kind, then a word under its scope ("not ... employ any")
        scoped = rf"(?:{cues.negation})(?:\s+[\w'\u2019-]+){{0,3}}?\s+(?:{cues.negative_scope})"
        return cls(
            negation=re.compile(rf"{right_before(cues.negation).pattern}|{right_before(scoped).pattern}", re.IGNORECASE),
            hypothetical=right_before(cues.hypothetical),
            hedge=right_before(cues.hedge),
            self_words=re.compile(cues.self_words, re.IGNORECASE),
            self_pronouns=re.compile(cues.self_pronouns, re.IGNORECASE),
            others_subject=re.compile(rf"\b(?:{cues.others_subject})\b", re.IGNORECASE),
            generic_opening=re.compile(cues.generic_opening, re.IGNORECASE),
            elsewhere=re.compile(cues.elsewhere, re.IGNORECASE),
            negation_after=re.compile(rf"^{fill}\s+(?:{cues.negation_after})\b", re.IGNORECASE),
            transition_after=re.compile(rf"^{fill}\s+(?:{cues.transition_after})\b", re.IGNORECASE),
            others=re.compile(rf"\b(?:{cues.others_subject})\b|{cues.others}", re.IGNORECASE),
            negative_subject=re.compile(cues.negative_subject, re.IGNORECASE),
            negative_subject_fields=frozenset(cues.negative_subject_fields),
            correction_after=right_after(cues.correction_after),
            retraction_after=re.compile(rf"^\s*[.!,;(\u2014-]?\s*(?:{cues.retraction_after})\b", re.IGNORECASE),
            preferred_over=re.compile(rf"(?:{cues.preferred_over})\s*$", re.IGNORECASE),
            trial=right_before(cues.trial),
            trial_exempt_fields=frozenset(cues.trial_exempt_fields),
            not_known=right_before(cues.not_known),
            hedge_after=right_after(cues.hedge_after),
        )

    def retracted(self, text: str, end: int) -> bool:
        """Whether what ends at ``end`` is taken back right after it, even in the next sentence or line."""
        return self.retraction_after.search(text[end:end + REACH]) is not None

    def judge(self, text: str, start: int, end: int, answer: bool, confirm: bool = False, others: bool = True,
              field: str | None = None) -> Verdict:
        """What a match at ``text[start:end]`` (of ``field``) is worth: kept, dropped, or asked about.

        ``others=False`` leaves out the sentence-level check for someone else's situation (the
        ``others`` word list), to tell the drops that rest on it alone."""
        s_start, s_end = _sentence(text, start)
        sentence = text[s_start:s_end]
        c_start = _clause_start(text, max(s_start, start - REACH), start)
        c_end = _clause_end(text, end, s_end)
        if self.elsewhere.search(text[c_start:min(c_end, end + REACH)]):
            return "drop"
        asked = sentence.rstrip()
        question = asked.endswith("?")
        opens_asking = question and ASKING_OPENING.match(asked) is not None
        if question and (tail := asking_tail(asked.rstrip("?!"))) is not None and start - s_start < tail:
            question = False  # said before the asking tail: "training on gke with 8 gpus, is tpu worth it?"
        about_hardware = question or self.generic_opening.match(sentence) is not None
        if not answer and about_hardware and not self.self_words.search(sentence):
            return "drop"
        if (not answer and self.others_subject.search(text, c_start, start)
                and self._names_none_of_us(text[c_start:c_end], self.self_pronouns)):
            # the clause's subject is someone else, whoever the rest of the sentence is about ("my
            # buddy's startup is all-in on GCP, but we're a pytorch shop"): not a doubt, a drop
            return "drop"
        if not answer and others and self._about_others(sentence):
            return "drop"
        first_clause = not text[s_start:c_start].strip()
        if not answer and not confirm and question and (c_end >= s_end - 1 or opens_asking and first_clause):
            return "drop"  # the interrogative clause: "would JAX be faster for us?", "would JAX on GCP do, or ...?"
        before = text[c_start:start]
        if self.hedge.search(before):  # before the others: "not sure if we use ..." is a hedge
            return "ask"
        denied = field in self.negative_subject_fields and self.negative_subject.search(before) is not None
        # a candidate, or the loser of a preference ("rather ... than lock into something cheap",
        # which reaches across words of any kind in its sentence), unless it bounds a count
        candidate = (self.hypothetical.search(before) or self.preferred_over.search(text[s_start:start])
                     or (field not in self.trial_exempt_fields and self.trial.search(before)))
        if self.negation.search(before) or denied or (candidate and not _quantity(before, text[start:end])):
            return "drop"
        if self.negation_after.search(text[end:min(c_end, end + REACH)]):  # "cheapest isn't the point"
            return "drop"
        if self.correction_after.search(text[end:min(s_end, end + REACH)]):  # "aws, er azure actually": taken back
            return "drop"
        if self.retracted(text, end):  # "tensorflow. no wait, ...": taken back
            return "drop"
        if self.transition_after.search(text[end:min(c_end, end + REACH)]):  # "a Keras shop migrating to JAX": on the way out
            return "ask"
        if self.hedge_after.search(text[end:min(s_end, end + REACH)]):  # "maybe also AWS, not sure honestly"
            return "ask"
        return "keep"


    def said_unknown(self, text: str, hits: list[Hit], verdicts: list[Verdict]) -> tuple[list[Hit], list[Verdict]]:
        """The hits (with their verdicts) after a "we do not know whether" cue is read, for a field
        whose "unknown" is an answer.

        "We haven't measured whether storage can keep the accelerators fed" names keeps_up only as
        the thing not known: the hedge made it a question ("It sounds like your pipeline keeps up:
        right?"), and "no clue if the loader keeps up" set it. The team has said it does not know,
        which is the data-pipeline question's own answer: such a hit (not dropped) becomes
        ``unknown``, kept, its evidence running from the cue to the match.
        """
        out_hits: list[Hit] = []
        out_verdicts: list[Verdict] = []
        for h, v in zip(hits, verdicts):
            m = None
            if h[0] in SAID_UNKNOWN and v != "drop":
                s_start, _ = _sentence(text, h[2])
                m = self.not_known.search(text, _clause_start(text, max(s_start, h[2] - REACH), h[2]), h[2])
            out_hits.append(h if m is None else (h[0], UNKNOWN, m.start(), h[3], h[4]))
            out_verdicts.append(v if m is None else "keep")
        return out_hits, out_verdicts

    def _about_others(self, sentence: str) -> bool:
        """Someone else's situation: "OpenAI serves on Azure", "my friend's startup trains on 512 TPUs"."""
        return self.others.search(sentence) is not None and self._names_none_of_us(sentence, self.self_words)

    def _names_none_of_us(self, span: str, ours: re.Pattern[str]) -> bool:
        """Whether ``span`` names no one of the team (``ours``) once the others it names are taken out
        ("my buddy's startup" says "my" of the buddy, not of the team)."""
        return ours.search(self.others.sub(" ", span)) is None


def _sentence(text: str, pos: int) -> tuple[int, int]:
    start = 0
    for m in _SENTENCE_END.finditer(text):
        if m.end() <= pos:
            start = m.end()
        elif m.start() >= pos:
            return start, m.end()
    return start, len(text)


def _clause_start(text: str, sentence_start: int, pos: int) -> int:
    start = sentence_start
    for m in _CLAUSE_BREAK.finditer(text, sentence_start, pos):
        start = m.end()
    return start


def _clause_end(text: str, pos: int, sentence_end: int) -> int:
    m = _CLAUSE_BREAK.search(text, pos, sentence_end)
    return m.start() if m else sentence_end

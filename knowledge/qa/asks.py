"""The asks of a question: what each part wants back, before anything is retrieved.

A question may hold several asks ("(1) does bf16 matter? (2) how do we stop
recompiling?"), and each wants a different kind of answer: yes/no, which one, why, how,
how to fix, what is, a list, does X matter, a choice for our team, a figure, code, a
diagnosis. The answer is composed per ask, in order, under a short label when there are
several (:mod:`knowledge.qa.service`); the type decides what its lead sentence must do
(:mod:`knowledge.qa.leads`).

The type cues are data (``data/asks.toml``), as are the cues :mod:`knowledge.qa.splitting` splits a
question into asks by. When no cue names the type,
the question engine's intent decides it: the nearest labelled prototype, compared with
the query vector the engine computes anyway (a meaning-based signal at no extra cost).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from knowledge.spelling import respell

__all__ = [
    "Ask", "AskData", "ask_data", "answer_type", "asks_for_method", "focus_of", "ASK_TYPES", "METHOD_TYPES",
    "cue_type", "without_cue", "accelerator_options", "names_both", "intent_type", "INTENT_TYPES", "options_of",
    "opens_by_asking", "question_sentences",
]

_FILE = Path(__file__).with_name("data") / "asks.toml"

ASK_TYPES = (
    "code", "figure", "choice", "diagnose", "how_to_fix", "does_matter", "realistic", "watch", "compare",
    "which_one", "why", "how", "list", "what_is", "yes_no",
)
#: The question engine's intent → answer type, when no cue of ``[types]`` matched.
INTENT_TYPES = {
    "definition": "what_is", "why": "why", "how": "how", "yes_no": "yes_no", "comparison": "compare",
    "situational": "choice", "figure": "figure", "code": "code", "out_of_scope": "out_of_scope",
}


def _compiled(patterns: list[str]) -> list[str]:
    for p in patterns:
        re.compile(p, re.I)  # a bad pattern fails at load, naming itself; re.I as they are used (re caches it)
    return patterns


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SplitCues(_Strict):
    numbered: str
    joiners: list[str]
    #: joiners that split only a piece which itself opens by asking ("why does it recompile, how do I stop it?")
    asked_joiners: list[str] = []
    series_joiners: list[str] = []
    #: a later ask with one of these words leans on the ask before it (see knowledge.qa.joining)
    leans: str
    #: the clause of a question sentence that asks, after a comma or dash (see :func:`cue_type`)
    asking_part: str
    #: a numbered item that asks on its own (else the items are the options of one ask)
    asking_item: str
    #: an opening that announces several questions ("two questions on debugging:", "couple of qs:") ...
    announced: str = r"(?!x)x"
    #: ... after which these also start an ask ("why is it painful on a TPU, and what in JAX helps?")
    announced_joiners: list[str] = []
    #: a question part this short (words) without an asking word narrows the ask before it ...
    fragment_words: int = Field(default=0, ge=0)
    #: ... when it opens like a phrase of that ask ("On the chip itself?", "Or in production?")
    fragment_opening: str = r"(?!x)x"

    @field_validator("leans", "asking_part", "asking_item", "fragment_opening", "announced")
    @classmethod
    def _compiles(cls, v: str) -> str:
        _compiled([v])
        return v


class Objects(_Strict):
    words: list[str]
    shapes: list[str]


class Language(_Strict):
    max_non_ascii_share: float = Field(ge=0, le=1)
    min_foreign: int = Field(ge=1)
    foreign: list[str]
    english: list[str]


class Hedges(_Strict):
    patterns: list[str]


class AskData(_Strict):
    max_asks: int = Field(ge=1, le=10)
    min_words: int = Field(ge=1)
    split: SplitCues
    types: dict[str, list[str]]
    #: asks for a method that are typed by the model, not by these words (see :func:`asks_for_method`)
    method_requests: list[str] = []
    lead: dict[str, list[str]]
    #: what a curated FAQ answer's first sentence must also hold for an ask of each type
    curated: dict[str, list[str]] = {}
    hedges: Hedges
    aliases: dict[str, list[str]] = {}
    objects: Objects
    language: Language

    @field_validator("types", "lead", "curated")
    @classmethod
    def _known(cls, v: dict[str, list[str]]) -> dict[str, list[str]]:
        unknown = set(v) - set(ASK_TYPES)
        if unknown:
            raise ValueError(f"unknown answer types {sorted(unknown)} (known: {', '.join(ASK_TYPES)})")
        for patterns in v.values():
            _compiled(patterns)
        return v


@lru_cache(maxsize=1)
def ask_data() -> AskData:
    return AskData(**tomllib.loads(_FILE.read_text(encoding="utf-8")))


def opens_by_asking(text: str) -> bool:
    """Whether ``text`` opens with a question word (or "list", "name", "explain"): it asks by itself."""
    return re.match(ask_data().split.asking_item, text, re.IGNORECASE) is not None


@lru_cache(maxsize=1)
def _type_cues() -> list[tuple[str, list[re.Pattern[str]]]]:
    data = ask_data()
    return [(name, [re.compile(p, re.I) for p in data.types.get(name, [])]) for name in ASK_TYPES]


@dataclass(frozen=True)
class Ask:
    """One ask: its own words, the label it is answered under, and (after typing) its answer type."""

    text: str
    label: str = ""
    type: str = ""
    options: tuple[str, ...] = field(default_factory=tuple)
    #: what retrieval searches with: the ask, after what it refers back to ("how do we fix it?")
    search: str = ""

    @property
    def query(self) -> str:
        return self.search or self.text


def focus_of(text: str) -> str:
    """The sentence that asks: the last one ending in "?" and any statements after it, else the text.

    A team's situation told before its question ("we run on Google Cloud; ... does lock-in
    still matter?") is context: the ask's type and the objects it asks about come from the
    asking sentence, not from what the context mentions in passing.
    """
    sentences = question_sentences(text)
    asked = [i for i, s in enumerate(sentences) if s.rstrip().endswith("?")]
    if not asked and len(sentences) > 1 and opens_by_asking(sentences[-1]):
        # an ask split off before its "?" ("... What is going on | and how do we fix it?") ends in its
        # asking sentence: "What is going on" is a diagnosis, whatever numbers the situation gave
        return sentences[-1]
    if not asked or len(sentences) == 1:
        return text
    return " ".join(sentences[asked[-1] :])


def _asking_part(focus: str) -> str:
    """The question's own words when a statement leads into them in the same sentence: a trouble
    named before the comma ("keeps recompiling") is the topic, the clause after it is the ask."""
    m = re.search(ask_data().split.asking_part, focus, re.I)
    return m.group(1) if m else focus


def cue_type(text: str) -> str | None:
    """The answer type the ask's own words give (a cue of ``[types]``, in ``ASK_TYPES`` order, on
    its asking clause, then its asking sentence, then the whole text), or None when none does.

    A slip of a cue word is read as the word ("shuld we go tpu or stay on gpu" asks for a choice):
    the text is respelt against the cues' own words (:mod:`knowledge.spelling`)."""
    text = respell(text, (_FILE,)).text
    focus = focus_of(text)
    options = options_of(focus)
    if accelerator_options(text):
        # "TPU or GPU?" is a choice for the team when it speaks of the team, else an open comparison
        return "choice" if _TEAM.search(text) else "compare"
    for where in dict.fromkeys((_asking_part(focus), focus, text)):
        for name, patterns in _type_cues():
            if name == "yes_no" and options:
                return "which_one"  # "is it the compiler or the input pipeline?" names its options
            if any(p.search(where) for p in patterns):
                return name
    return None


def without_cue(text: str, kind: str) -> str | None:
    """``text`` with a cue of answer type ``kind`` taken out ("what are the main gotchas"
    of "what are the main gotchas with spot TPUs?" leaves "with spot TPUs?"; the longest cue that
    matches), or None when no cue of that type is in it: what the ask names beyond asking."""
    found = [m for name, patterns in _type_cues() if name == kind for p in patterns if (m := p.search(text))]
    if not found:
        return None
    m = max(found, key=lambda m: m.end() - m.start())  # the whole cue, not a shorter one inside it
    return (text[: m.start()] + " " + text[m.end() :]).strip()


def accelerator_options(text: str) -> bool:
    """Whether the asking sentence's options are the two accelerators ("TPU or GPU for serving?")."""
    options = options_of(focus_of(text))
    return bool(options) and {o.rstrip("s") for o in options} <= {"gpu", "tpu"}


def names_both(text: str) -> bool:
    """Whether the text names both accelerators (a GPU and a TPU)."""
    return bool(_GPU.search(text) and _TPU.search(text))


def answer_type(text: str, intent: str) -> str:
    """The ask's answer type: its cue (:func:`cue_type`), else the intent's."""
    if intent in ("figure", "code", "out_of_scope"):
        return INTENT_TYPES[intent]
    cued = cue_type(text)
    return cued if cued is not None else intent_type(text, intent)


def intent_type(text: str, intent: str) -> str:
    """The answer type the intent gives an ask no cue typed (see :func:`answer_type`)."""
    if intent == "comparison" and not names_both(text) and not _OPEN.search(text):
        return "yes_no"  # "we use spot TPUs without checkpointing" is a check, not an open comparison
    return INTENT_TYPES.get(intent, "how")


#: Ask types that want a method or a reason: a price or a loop they mention is not what they ask for.
METHOD_TYPES = ("how_to_fix", "why", "does_matter", "how")


def asks_for_method(text: str) -> bool:
    """Whether the asking sentence is worded as a how / how-to-fix / why / does-it-matter ask
    ("how can we stop paying the hourly price ...?", "what is the recommended way to write a loop
    ...?"): then a price word or a code word in it names the subject, and the ask wants the notes'
    method, not a figure or a snippet."""
    focus = focus_of(text)
    cues = dict(_type_cues())
    if any(re.search(p, focus, re.I) for p in ask_data().method_requests):
        return True
    return any(p.search(focus) for name in METHOD_TYPES for p in cues[name])


_OPEN = re.compile(r"\b(when|which|what|whether)\b", re.I)
_GPU = re.compile(r"\bgpus?\b", re.I)
_TPU = re.compile(r"\btpus?\b", re.I)
_TEAM = re.compile(r"\b(we|we're|our|us|my team|my company|i'm|i am)\b", re.I)
_OPTION = re.compile(r"\b([\w./+-]+) or (?:an? |the |only |just )?([\w./+-]+)", re.I)
_NOT_OPTION = frozenset({"a", "an", "the", "it", "is", "are", "more", "less", "not", "either", "whether", "and", "only", "just"})


def options_of(text: str) -> tuple[str, ...]:
    """The options of an "A or B?" ask (the words either side of its first "or"), else ()."""
    m = _OPTION.search(text)
    if m is None or {m[1].lower(), m[2].lower()} & _NOT_OPTION:
        return ()
    return (m[1].lower(), m[2].lower())


#: Where a sentence ends: after ``?``, ``.`` or ``!``, or after an emoji that closes a chat statement
#: when a capital or an asking word follows ("our TPU quota finally got approved 🎉 Before we kick off
#: the first big run, what should we watch for?": the quota is the news, not what is asked, fq85-15)
_SENTENCE_END = re.compile(
    r"(?<=[?.!])\s+(?=\S)|(?<=[\U0001F300-\U0001FAFF\u2600-\u27BF])\s+"
    r"(?=[A-Z]|(?:anything|what|how|why|which|when|where|is|are|can|could|should|do|does|any)\b)"
)


def question_sentences(text: str) -> list[str]:
    """Sentences (:data:`_SENTENCE_END`), and at the line breaks cleaning kept (a pasted
    "> disk usage at 71%" line, a bullet, a new paragraph: :func:`~knowledge.qa.hygiene.clean_question`)."""
    return [s.strip() for line in text.split("\n") for s in _SENTENCE_END.split(line) if s.strip()]

"""Does a sentence answer the ask, and is the question about something the notes name?

A lead sentence must answer its ask, not merely share its topic: a yes/no ask leads with
a sentence whose polarity is explicit, a which-one ask with one naming an option, a
how-to-fix ask with an action, a does-X-matter ask with a sentence about an effect
(``[lead]`` in ``data/asks.toml``). A fallback or hedge sentence never leads
(``[hedges]``).

The question's key object (Slurm, EKS, Colab, a region, a driver version, a percentage:
``[objects]``) must appear in the chosen evidence, or the answer declines: sharing the
words GPU, CUDA or TPU is not an answer about Slurm. (The answerer waives this when the
learned out-of-domain gate is confident the question is in the domain: the name is then
part of the situation told, not what is asked.)
"""

from __future__ import annotations

import re
from functools import lru_cache

from knowledge.qa.asks import ask_data

__all__ = ["answers_ask", "opens_curated", "has_lead_cues", "is_hedge", "key_objects", "names_object", "excuses_object", "foreign_language"]


def has_lead_cues(ask_type: str) -> bool:
    """Whether a lead for this ask type must have a shape of its own (``[lead]`` in asks.toml)."""
    return bool(_lead_cues().get(ask_type))


def _compiled_table(table: dict[str, list[str]]) -> dict[str, list[re.Pattern[str]]]:
    return {name: [re.compile(p, re.I) for p in pats] for name, pats in table.items()}


@lru_cache(maxsize=1)
def _lead_cues() -> dict[str, list[re.Pattern[str]]]:
    out = _compiled_table(ask_data().lead)
    # how / what to watch / is it realistic are answered like their nearest typed cousin
    out.setdefault("how", out.get("how_to_fix", []))
    return out


@lru_cache(maxsize=1)
def _hedges() -> list[re.Pattern[str]]:
    return [re.compile(p, re.I) for p in ask_data().hedges.patterns]


def is_hedge(sentence: str) -> bool:
    """A fallback or hedge ("When neither list fits cleanly, ...") that cannot open an answer."""
    return any(p.search(sentence) for p in _hedges())


def _stem(word: str) -> str:
    w = word.lower().strip(".,;:!?()'\"")
    return w[:-1] if w.endswith("s") and len(w) > 3 else w


def answers_ask(ask_type: str, sentence: str, options: tuple[str, ...] = ()) -> bool:
    """Whether ``sentence`` does what a lead for an ask of ``ask_type`` must do."""
    if is_hedge(sentence):
        return False
    if ask_type == "which_one" and options:
        words = {_stem(w) for w in re.findall(r"[\w./+-]+", sentence)}
        low = sentence.lower()
        aliases = ask_data().aliases
        return any(_stem(opt) in words or any(a in low for a in aliases.get(opt, [])) for opt in options)
    cues = _lead_cues().get(ask_type)
    if not cues:
        return True
    return any(p.search(sentence) for p in cues)


def opens_curated(ask_type: str, sentence: str, options: tuple[str, ...] = ()) -> bool:
    """Whether a curated FAQ answer opening with ``sentence`` answers an ask of ``ask_type``: it must
    do what a lead must, and what ``[curated]`` in asks.toml adds for the type."""
    cues = _curated_cues().get(ask_type, [])
    return answers_ask(ask_type, sentence, options) and (not cues or any(p.search(sentence) for p in cues))


@lru_cache(maxsize=1)
def _curated_cues() -> dict[str, list[re.Pattern[str]]]:
    return _compiled_table(ask_data().curated)


_WORD = re.compile(r"[A-Za-z0-9][\w.%/+-]*")


@lru_cache(maxsize=1)
def _objects() -> tuple[frozenset[str], tuple[re.Pattern[str], ...]]:
    data = ask_data().objects
    return frozenset(w.lower() for w in data.words), tuple(re.compile(p, re.I) for p in data.shapes)


#: Code the user pasted (inline or fenced): their own program, not a thing the ask is about.
_CODE = re.compile(r"```.*?(?:```|$)|`[^`\n]*`", re.S)


def key_objects(text: str) -> list[str]:
    """The near-domain things the ask is about that an answer must name (in order, no repeats).

    Pasted code is left out: the ``0.5`` of "`x = x * 0.5` under jit?" is no version asked about.
    """
    words, shapes = _objects()
    out: list[str] = []
    for raw in _WORD.findall(_CODE.sub(" ", text)):
        token = raw.lower().rstrip(".,;:")
        if (token in words or any(p.match(token) for p in shapes)) and token not in out:
            out.append(token)
    return out


def names_object(obj: str, sentences: list[str]) -> bool:
    """Whether one of the sentences names ``obj`` (a whole word, case-insensitive)."""
    pattern = re.compile(r"(?<![\w.])" + re.escape(obj) + r"(?![\w])", re.I)
    return any(pattern.search(s) for s in sentences)


_EXCLUSIVE = re.compile(r"\bonly (?:on|for|with|in|through|from|by) (?:the )?([\w./+-]+)", re.I)


def excuses_object(ask_type: str, lead: str, question: str) -> bool:
    """Whether a yes/no lead answers about an object without naming it: "CUDA code runs only on
    NVIDIA GPUs" answers "does CUDA run on AMD cards, or only NVIDIA?" (no), because the question
    itself names the one thing the lead allows."""
    if ask_type not in ("yes_no", "which_one"):
        return False
    asked = {_stem(w) for w in re.findall(r"[\w./+-]+", question)}
    return any(_stem(m[1]) in asked for m in _EXCLUSIVE.finditer(lead))


def foreign_language(text: str) -> bool:
    """A question in another language: mostly non-ASCII letters, or another language's function words."""
    lang = ask_data().language
    letters = [c for c in text if c.isalpha()]
    if letters and sum(1 for c in letters if not c.isascii()) / len(letters) >= lang.max_non_ascii_share:
        return True
    words = [w.lower() for w in re.findall(r"[^\W\d_]+", text)]
    foreign = sum(1 for w in words if w in set(lang.foreign))
    english = sum(1 for w in words if w in set(lang.english))
    return foreign >= lang.min_foreign and foreign > english

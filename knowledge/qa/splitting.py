"""Splitting a question into its asks: numbered parts, several question sentences, joiners inside
one sentence, an announced number of questions, and a pasted log's closing question.

The cues are data (``[split]`` in ``data/asks.toml``); typing each ask is :mod:`knowledge.qa.asks`'
business. Split apart from the typing because the two change for different reasons: a new way
people join two questions ("Two questions on X: ..., and what ...?") touches only this step.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from knowledge.qa.asks import Ask, ask_data, opens_by_asking, options_of, question_sentences

__all__ = ["split_asks", "leans_on_context", "looks_like_log"]


_TOKEN = re.compile(r"[^\s]+")


def looks_like_log(text: str) -> bool:
    """Mostly pasted output: most tokens carry digits, paths, brackets or '=' rather than words."""
    tokens = _TOKEN.findall(text)
    if len(tokens) < 20:
        return False
    noisy = sum(1 for t in tokens if _noisy(t))
    return noisy / len(tokens) >= 0.35


def _noisy(token: str) -> bool:
    return re.search(r"[\d/\\=\[\]{}<>|:_]", token) is not None


def _tail_question(text: str) -> str:
    """The words after the last log-like token: the question a pasted log ends with."""
    tokens = text.split()
    last = max((i for i, t in enumerate(tokens) if _noisy(t)), default=-1)
    tail = " ".join(tokens[last + 1 :])
    return tail if len(tail.split()) >= 3 else text


def _label(text: str) -> str:
    """A short label for one ask of several: the opening words of its asking sentence, not of the
    situation told before it ("What's going on", not "Last week we moved our speech ...")."""
    sentences = question_sentences(text)
    asking = [s for s in sentences if "?" in s] or sentences[-1:]  # an ask split off its "?" ends the part
    if len(sentences) > 1 and len(re.findall(r"\w+", asking[-1])) >= 2:
        text = asking[-1]
    words = re.sub(r"^\W+", "", text).rstrip(" ?.!").split()
    short = " ".join(words[:7])
    return short + ("…" if len(words) > 7 else "")


def _split_at(pieces: list[str], joiners: list[str], when: Callable[[str], bool] = lambda piece: True) -> list[str]:
    """Each piece split at every joiner in turn; a piece ``when`` turns down stays whole."""
    for joiner in joiners:
        pieces = [x for piece in pieces for x in (re.split(joiner, piece, flags=re.I) if when(piece) else [piece])]
    return pieces


def _series(text: str, joiners: list[str]) -> list[str]:
    """``text`` split into its questions when it is a series of three or more that opens by asking
    (``series_joiners`` in ``data/asks.toml``); else ``[text]``."""
    if not opens_by_asking(text):
        return [text]
    pieces = _split_at([text], joiners)
    return pieces if len(pieces) >= 3 else [text]


#: "what's HBM", "what is XLA": a definition asked, however short, is an ask of its own
_DEFINITION_ASKED = re.compile(r"^\W*(?:what|who)(?:['\u2019]s|\s+(?:is|are))\s+\w", re.I)


def _merge_short(parts: list[str], min_words: int) -> list[str]:
    out: list[str] = []
    for p in parts:
        if out and len(p.split()) < min_words and not _DEFINITION_ASKED.match(p):
            out[-1] = f"{out[-1]} {p}"
        else:
            out.append(p)
    return out


def _merge_fragments(parts: list[str]) -> list[str]:
    """A short question with no asking word of its own that opens like a phrase ("On the chip
    itself?", "Or in production?") narrows the ask before it rather than asking anew: split off,
    it was answered alone and declined as out of scope. It joins its predecessor, which then
    carries both. "Anything to watch out for?" asks anew, and stays an ask of its own."""
    out: list[str] = []
    for p in parts:
        words = re.findall(r"[\w'-]+", p)
        if (out and "?" in p and len(words) <= ask_data().split.fragment_words and not opens_by_asking(p)
                and re.match(ask_data().split.fragment_opening, p, re.IGNORECASE)):
            out[-1] = f"{out[-1]} {p}"
        else:
            out.append(p)
    return out


def _enumerates_options(lead: str, items: list[str]) -> bool:
    """Whether numbered items are the options of one ask rather than asks of their own.

    "Which workload gains more from a TPU: (a) a weeks-long pretraining run, or (b) a graph
    search full of branches?" asks once; its items are what it chooses between, and split they
    are fragments no one can answer ("a graph-traversal algorithm ..." alone looked out of
    scope). Items are options when the text before them (``lead``) asks (a "?" or a closing ":"
    or a question word) and none of them, the last one's tail aside, asks anything itself."""
    if not lead or not (lead.endswith(":") or "?" in lead or opens_by_asking(lead)):
        return False
    return not any("?" in item for item in items[:-1]) and not any(opens_by_asking(item) for item in items)


def split_asks(text: str) -> tuple[list[Ask], str, int]:
    """The question's asks (untyped), its context (statements before them) and how many asks were dropped.

    A single ask keeps the whole text (its situation helps retrieval), unless the rest is
    mostly pasted log output, which only adds noise.
    """
    data = ask_data()
    numbered = re.compile(data.split.numbered)
    marks = list(numbered.finditer(text))
    context = ""
    items = [text[m.end() : (marks[i + 1].start() if i + 1 < len(marks) else len(text))].strip() for i, m in enumerate(marks)]
    announced = None if len(marks) >= 2 else re.match(data.split.announced, text, re.I)
    if announced is not None and not text[announced.end():].strip():
        announced = None
    if len(marks) >= 2 and not _enumerates_options(text[: marks[0].start()].strip(), items):
        context = text[: marks[0].start()].strip()
        parts = items
    else:
        # an announcement ("Two questions on debugging:") is the asks' context, its asks the rest
        body = text if announced is None else text[announced.end():]
        sentences = question_sentences(body)
        asked = [i for i, s in enumerate(sentences) if s.endswith("?")]
        if len(asked) >= 2:
            context = " ".join(sentences[: asked[0]])
            parts = [" ".join(sentences[a : (asked[j + 1] if j + 1 < len(asked) else a + 1)]) for j, a in enumerate(asked)]
            # statements after the last question belong to it
            parts[-1] = " ".join([parts[-1]] + sentences[asked[-1] + 1 :])
        elif looks_like_log(body):
            parts = [_tail_question(body)]
        else:
            parts = [body]
        if announced is not None:
            context = f"{announced.group(0).strip(' :')} {context}".strip()
    if len(parts) == 1 and not context:
        # a series of questions told after a remark ("reading a spec sheet and kinda lost 🙃 what's an
        # MXU, what's HBM, and is a pod slice the same thing as a pod?"): the remark is their context
        *remark, last = question_sentences(parts[0]) or [parts[0]]
        if remark and len(_series(last, data.split.series_joiners)) > 1:
            context, parts = " ".join(remark), [last]
    joined: list[str] = []
    for part in parts:
        pieces = _split_at(_series(part, data.split.series_joiners), data.split.joiners)
        pieces = _split_at(pieces, data.split.asked_joiners, when=opens_by_asking)
        if announced is not None:
            pieces = _split_at(pieces, data.split.announced_joiners)
        joined.extend(_LEADING.sub("", p).strip(" ,;") for p in pieces if p.strip(" ,;"))
    joined = _merge_fragments(_merge_short([p for p in joined if re.search(r"\w", p)], data.min_words)) or [text]
    dropped = max(0, len(joined) - data.max_asks)
    kept = joined[: data.max_asks]
    if len(kept) == 1 and context:
        # two question sentences merged back into one ask ("Is that just me or is it a known
        # thing? Any tricks?"): a single ask keeps its situation, which its "that" points at
        kept, context = [f"{context} {kept[0]}"], ""
    # "We moved to a TPU slice last week. ... What's going on and what should we change first?": the
    # situation is told in the first ask's sentences, and a short ask joined to it is about it too
    told = " ".join(question_sentences(kept[0])[:-1]) if len(kept) > 1 and not context else ""
    asks: list[Ask] = []
    for i, p in enumerate(kept):
        search = ""
        if len(kept) > 1 and leans_on_context(p):
            # the ask before, as it was searched: when it leaned on the context itself ("can these
            # run on a TPU? if not, what is the alternative?"), its referent is there
            before = (asks[i - 1].search or kept[i - 1]) if i else context
            search = f"{before} {p}".strip() if before else ""
        elif i and told and len(p.split()) <= _SHORT_ASK:
            search = f"{told} {p}"
        asks.append(Ask(text=p, label=_label(p) if len(kept) > 1 else "", options=options_of(p), search=search))
    return asks, context, dropped


#: At most this many words, an ask joined to a situation told before it names nothing of its own.
_SHORT_ASK = 8

#: Joining words at either end of an ask ("And what is Pallas for?", "what does XLA stand for, and").
_LEADING = re.compile(r"^\s*(?:and|also|plus|so)\b,?\s*|,?\s*\b(?:and|also)\s*$", re.I)


def leans_on_context(text: str) -> bool:
    """Whether an ask points back at what came before it ("what do I use instead?")."""
    return re.search(ask_data().split.leans, text, re.IGNORECASE) is not None

"""Finding the questions in a docs file, for ``hwbot faq``.

Team FAQ pages are markdown written by hand, so questions show up in a few shapes: a
heading ("## Can we use PyTorch on TPUs?"), a bullet or numbered item, a task-list
item, or a plain paragraph. Whatever the shape, a question is text that ends with a
question mark once markup is removed; a heading such as "## Installation" is not one,
and answering it would only add noise to the "Not covered" list. A heading or item
may add a remark after its question ("Can we use TPUs? See the handbook."): the
question is kept, the remark dropped.

What is never a question: fenced code (a ``?`` in a regex or a shell snippet), front
matter, HTML comments, link reference definitions and tables. Links keep their text
and lose their target; bare URLs and autolinks are removed, so a URL is neither part
of a question nor ever fetched (nothing here opens a network connection).

In a paragraph, each line that ends with a question mark is a question; a question
wrapped over several lines is joined back from where its sentence starts. A line is
taken whole when short, so context on it ("We train in PyTorch. Can we use TPUs?")
travels with the question; a long one gives its last sentence. A question asked
twice is answered once: the first occurrence stays.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from common.errors import InputError
from common.markdown import FRONT_MATTER, MarkdownBlock, markdown_blocks
from common.sentences import split_sentences
from common.textio import read_text_file

__all__ = ["FoundQuestion", "read_docs", "extract_questions", "normalize_question", "MAX_DOCS_BYTES"]

MAX_DOCS_BYTES = 5_000_000
#: A question line longer than this contributes only its last sentence.
MAX_PARAGRAPH_CHARS = 300


_IMAGE = re.compile(r"!\[([^\]]*)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+\"[^\"]*\")?\)")
_LINK = re.compile(r"\[([^\]]*)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+\"[^\"]*\")?\)")
_REF_LINK = re.compile(r"\[([^\]]+)\]\[[^\]]*\]")
_AUTOLINK = re.compile(r"<(?:https?|ftp|mailto):[^>\s]*>", re.I)
_BARE_URL = re.compile(r"\b(?:(?:https?|ftp)://|www\.)\S+", re.I)
_CODE_SPAN = re.compile(r"`+([^`]*)`+")
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_STRONG = re.compile(r"(\*\*|__)(.+?)\1")
_EMPH = re.compile(r"(?<![\w*])([*_])(?!\s)(.+?)(?<!\s)\1(?![\w*])")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!?>|])")
_Q_PREFIX = re.compile(r"^(?:q|question)\s*[:.)]\s+", re.I)
_WORD = re.compile(r"[^\W\d_]{2,}")

Kind = Literal["heading", "item", "paragraph"]


@dataclass(frozen=True)
class FoundQuestion:
    text: str
    line: int  # 1-based line of the docs file where the question starts
    kind: Kind


def read_docs(path: Path, max_bytes: int | None = None) -> str:
    """The file's text, or one :class:`InputError` line saying why it cannot be used."""
    text = read_text_file(path, expected="a UTF-8 docs file (markdown or text)", max_bytes=max_bytes or MAX_DOCS_BYTES)
    if not text.strip():
        raise InputError(f"{path}: the file is empty")
    return text


def clean_inline(text: str) -> str:
    """Markdown inline markup to plain text: links keep their text, URLs vanish."""
    text = _IMAGE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _REF_LINK.sub(r"\1", text)
    text = _AUTOLINK.sub(" ", text)
    text = _BARE_URL.sub(" ", text)
    text = _CODE_SPAN.sub(r"\1", text)
    text = _HTML_TAG.sub(" ", text)
    text = _STRONG.sub(r"\2", text)
    text = _EMPH.sub(r"\2", text)
    text = _ESCAPE.sub(r"\1", text)
    text = " ".join(text.split())
    return _Q_PREFIX.sub("", text)


def normalize_question(question: str) -> str:
    """The form two questions are compared in: case, punctuation and spacing ignored."""
    return " ".join(re.sub(r"[^\w\s]", " ", question.lower()).split())


def _as_question(text: str) -> str | None:
    text = text.strip().rstrip("*_ ").strip()
    if not text.endswith("?") or len(_WORD.findall(text)) < 2:
        return None
    return text


def _leading_question(text: str) -> str | None:
    """A heading or item that asks first and adds a remark ("Can we...? See the docs.")."""
    whole = _as_question(text)
    if whole is not None:
        return whole
    sentences = split_sentences(text)
    asks = [i for i, sentence in enumerate(sentences) if sentence.endswith("?")]
    return _as_question(" ".join(sentences[: asks[-1] + 1])) if asks else None


def _shorten(question: str | None) -> str | None:
    if question is None or len(question) <= MAX_PARAGRAPH_CHARS:
        return question
    return _as_question(split_sentences(question)[-1])


def _paragraph_questions(lines: list[tuple[int, str]]) -> list[tuple[str, int]]:
    """(question, line) for each line of a paragraph that ends one, joined back over wraps."""
    out: list[tuple[str, int]] = []
    plain = [(n, clean_inline(raw)) for n, raw in lines]
    begin = 0  # index of the first line of the current sentence run
    for i, (_, text) in enumerate(plain):
        if _as_question(text) is not None:
            question = _shorten(_as_question(" ".join(t for _, t in plain[begin : i + 1])))
            if question is not None:
                out.append((question, plain[begin][0]))
        if not text or text[-1] in ".!?:;":
            begin = i + 1
    return out


def _blocks(text: str) -> list[MarkdownBlock]:
    """Headings, list items and paragraphs outside code, from the one markdown scanner."""
    # Front matter becomes blank lines, so line numbers stay true.
    text = FRONT_MATTER.sub(lambda m: "\n" * m.group(0).count("\n"), text, count=1)
    return [b for b in markdown_blocks(text) if b.kind in ("heading", "item", "paragraph")]


def extract_questions(text: str) -> tuple[list[FoundQuestion], int]:
    """The distinct questions of a docs text in order, and how many repeats were dropped."""
    found: list[FoundQuestion] = []
    seen: set[str] = set()
    repeats = 0
    for block in _blocks(text):
        kind: Kind = "paragraph" if block.kind == "paragraph" else "heading" if block.kind == "heading" else "item"
        lines = list(block.lines)
        if kind == "paragraph":
            candidates = _paragraph_questions(lines)
        else:
            question = _shorten(_leading_question(clean_inline(" ".join(raw for _, raw in lines))))
            candidates = [(question, lines[0][0])] if question is not None else []
        for question, line in candidates:
            key = normalize_question(question)
            if key in seen:
                repeats += 1
                continue
            seen.add(key)
            found.append(FoundQuestion(text=question, line=line, kind=kind))
    return found, repeats

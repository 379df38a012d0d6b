"""The one markdown block scanner, shared by the knowledge sources and ``hwbot faq``.

Both need the same reading of a hand-written markdown file: headings, list items and
paragraphs, in order, with their line numbers, and nothing from fenced code, HTML
comments, tables, rules or link reference definitions. The sources additionally use
two comment markers, ``<!-- page N -->`` and ``<!-- cites: a, b -->``, which come out
as blocks of their own; every other comment is dropped (its newlines kept, so line
numbers stay true). Inline markup is left alone: each caller cleans it its own way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = ["FRONT_MATTER", "MarkdownBlock", "markdown_blocks"]

#: YAML front matter at the very start of a file (the text has ``\n`` newlines).
FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)\n---[ \t]*(?:\n|\Z)", re.S)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_PAGE_MARK = re.compile(r"^\s*<!--\s*page\s+(\d+)\s*-->\s*$", re.I)
#: ``<!-- cites: file_gpu001:c0002, file_gpu002:c0001 -->``: the chunks a curated answer rests on.
_CITES = re.compile(r"^\s*<!--\s*cites?:\s*(.*?)\s*-->\s*$", re.I)
_MARKER = re.compile(r"<!--\s*(?:page\s+\d+|cites?:[^\n]*?)\s*-->", re.I)
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:\s+(.*?))?(?:\s+#+)?\s*$")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+(.*)$")
_TASK_BOX = re.compile(r"^\[[ xX]\]\s+")
_REF_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*\S")
_RULE = re.compile(r"^ {0,3}([-*_=])(\s*\1){2,}\s*$")
_TABLE = re.compile(r"^\s*\|")
_QUOTE = re.compile(r"^\s*(>\s?)+")

Kind = Literal["heading", "item", "paragraph", "page", "cites"]


@dataclass(frozen=True)
class MarkdownBlock:
    """One block. ``lines`` are (1-based line number, text); ``level`` is a heading's level or a page's number."""

    kind: Kind
    lines: tuple[tuple[int, str], ...]
    level: int = 0

    @property
    def line(self) -> int:
        return self.lines[0][0]

    @property
    def text(self) -> str:
        return " ".join(t.strip() for _, t in self.lines).strip()


def _drop_comments(text: str) -> str:
    """Blank every HTML comment but the page and cites markers, keeping its newlines."""

    def blank(m: re.Match[str]) -> str:
        return m.group(0) if _MARKER.fullmatch(m.group(0)) else "\n" * m.group(0).count("\n")

    return _COMMENT.sub(blank, text)


def _closes_fence(line: str, fence: str) -> bool:
    marker = _FENCE.match(line)
    if not marker or marker.group(1)[0] != fence[0] or len(marker.group(1)) < len(fence):
        return False
    return not line.strip()[len(marker.group(1)) :].strip()


class _Scanner:
    """Collects blocks; an item or paragraph stays open until something closes it."""

    def __init__(self) -> None:
        self.blocks: list[MarkdownBlock] = []
        self.open_kind: Kind | None = None
        self.parts: list[tuple[int, str]] = []

    def close(self) -> None:
        if self.open_kind is not None and self.parts:
            self.blocks.append(MarkdownBlock(self.open_kind, tuple(self.parts)))
        self.open_kind = None
        self.parts = []

    def single(self, kind: Kind, number: int, text: str, level: int = 0) -> None:
        self.close()
        self.blocks.append(MarkdownBlock(kind, ((number, text),), level))

    def line(self, number: int, line: str) -> None:
        heading = _HEADING.match(line)
        item = _ITEM.match(line)
        if heading:
            self.single("heading", number, heading.group(2) or "", len(heading.group(1)))
        elif item:
            self.close()
            self.open_kind = "item"
            self.parts.append((number, _TASK_BOX.sub("", item.group(1)).strip()))
        else:
            # An indented line right after an item continues it; any other starts a paragraph.
            if self.open_kind == "item" and not line[:1].isspace():
                self.close()
            if self.open_kind is None:
                self.open_kind = "paragraph"
            self.parts.append((number, line.strip()))


def markdown_blocks(text: str) -> list[MarkdownBlock]:
    """The blocks of a markdown text (front matter already removed or blanked), in order."""
    scan = _Scanner()
    fence: str | None = None
    for number, line in enumerate(_drop_comments(text).split("\n"), start=1):
        if fence is not None:
            if _closes_fence(line, fence):
                fence = None
            continue  # code is not prose: it is neither indexed, quoted nor asked
        marker = _FENCE.match(line)
        if marker:
            scan.close()
            fence = marker.group(1)
            continue
        page, cites = _PAGE_MARK.match(line), _CITES.match(line)
        if page:
            scan.single("page", number, page.group(1), int(page.group(1)))
            continue
        if cites:
            scan.single("cites", number, " ".join(x for x in re.split(r"[,\s]+", cites.group(1)) if x))
            continue
        line = _QUOTE.sub("", _COMMENT.sub("", line))  # a marker inside a line marks nothing
        if not line.strip() or _RULE.match(line) or _TABLE.match(line) or _REF_DEF.match(line):
            scan.close()
            continue
        scan.line(number, line)
    scan.close()
    return scan.blocks

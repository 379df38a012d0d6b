"""Reading knowledge sources: markdown with front matter, and plain-text pages.

A source is parsed completely (and validated) before anything is written, so a bad
file aborts a build with one line naming it and leaves the previous index untouched.

Markdown sources carry YAML front matter with ``id`` (required), ``title``, ``url``
and ``type`` (``notes`` or ``faq``); pages are marked with ``<!-- page N -->``.
Plain-text sources (``.txt``) may carry the same front matter; without it their id is
derived from the file name. Pages in plain text are separated by form feeds.
URLs are kept as text or metadata only: nothing here (or anywhere) fetches them.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, Field, ValidationError, field_validator

from common.errors import SourceError

__all__ = ["Block", "Page", "Source", "read_source", "read_sources", "SOURCE_SUFFIXES", "MAX_SOURCE_BYTES"]

SOURCE_SUFFIXES = (".md", ".markdown", ".txt")
MAX_SOURCE_BYTES = 5_000_000
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_\-]{0,63}$")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.S)
_PAGE_MARK = re.compile(r"^\s*<!--\s*page\s+(\d+)\s*-->\s*$", re.I)
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*)$")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
#: ``<!-- cites: file_gpu001:c0002, file_gpu002:c0001 -->``: the chunks a curated answer rests on.
_CITES = re.compile(r"^\s*<!--\s*cites?:\s*(.*?)\s*-->\s*$", re.I)


class Block(BaseModel):
    """A heading, a paragraph or a list item, in document order."""

    kind: Literal["heading", "paragraph", "item", "cites"]
    text: str
    level: int = 0


class Page(BaseModel):
    number: int
    blocks: list[Block] = Field(default_factory=list)


class FrontMatter(BaseModel):
    id: str
    title: str = ""
    url: str = ""
    type: Literal["notes", "faq"] = "notes"

    @field_validator("id")
    @classmethod
    def _id_shape(cls, v: str) -> str:
        if not _ID_RE.match(v):
            raise ValueError("must be letters, digits, '_' or '-' (at most 64)")
        return v


class Source(BaseModel):
    id: str
    title: str
    url: str
    type: Literal["notes", "faq"]
    file: str
    sha256: str
    kind: Literal["markdown", "text"]
    pages: list[Page]


def _decode(path: Path, raw: bytes) -> str:
    if not raw.strip():
        raise SourceError(f"{path.name}: source is empty")
    if len(raw) > MAX_SOURCE_BYTES:
        raise SourceError(f"{path.name}: source is too large ({len(raw)} bytes, limit {MAX_SOURCE_BYTES})")
    if b"\x00" in raw:
        raise SourceError(f"{path.name}: source looks binary (NUL byte), expected UTF-8 text")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(f"{path.name}: source is not UTF-8 (bad byte at offset {exc.start})") from None


def _front_matter(path: Path, text: str, *, required: bool) -> tuple[FrontMatter | None, str]:
    match = _FRONT_MATTER.match(text)
    if not match:
        if required:
            raise SourceError(f"{path.name}: missing front matter with an 'id' (start the file with '---')")
        return None, text
    try:
        data = yaml.safe_load(match.group(1)) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        raise SourceError(f"{path.name}: front matter is not valid YAML{where}") from None
    if not isinstance(data, dict):
        raise SourceError(f"{path.name}: front matter must be key: value pairs")
    if "id" not in data or data["id"] in (None, ""):
        raise SourceError(f"{path.name}: front matter has no 'id'")
    data = {k: ("" if v is None else str(v)) for k, v in data.items() if k in FrontMatter.model_fields}
    try:
        return FrontMatter(**data), text[match.end() :]
    except ValidationError as exc:
        err = exc.errors()[0]
        field = err["loc"][0] if err.get("loc") else "?"
        raise SourceError(f"{path.name}: front matter field {field!r}: {err['msg']}") from None


def _markdown_pages(body: str) -> list[Page]:
    """Split on page markers, then into heading / paragraph / list-item blocks."""
    pages: list[Page] = [Page(number=1)]
    para: list[str] = []
    in_fence = False

    def flush() -> None:
        if para:
            text = " ".join(s.strip() for s in para).strip()
            if text:
                pages[-1].blocks.append(Block(kind="paragraph", text=text))
            para.clear()

    for line in body.splitlines():
        mark = _PAGE_MARK.match(line)
        if mark:
            flush()
            number = int(mark.group(1))
            if pages[-1].blocks or number != pages[-1].number:
                if not pages[-1].blocks:
                    pages.pop()
                pages.append(Page(number=number))
            continue
        if line.strip().startswith("```"):
            flush()
            in_fence = not in_fence
            continue
        if in_fence:
            continue  # code is not prose: it is neither indexed nor quoted
        cites = _CITES.match(line)
        if cites:
            flush()
            ids = " ".join(x for x in re.split(r"[,\s]+", cites.group(1)) if x)
            pages[-1].blocks.append(Block(kind="cites", text=ids))
            continue
        line = _HTML_COMMENT.sub("", line)
        heading = _HEADING.match(line)
        item = _LIST_ITEM.match(line)
        if heading:
            flush()
            pages[-1].blocks.append(Block(kind="heading", text=heading.group(2), level=len(heading.group(1))))
        elif item:
            flush()
            pages[-1].blocks.append(Block(kind="item", text=item.group(1).strip()))
        elif not line.strip():
            flush()
        else:
            para.append(line)
    flush()
    return [p for p in pages if p.blocks]


def _text_pages(body: str) -> list[Page]:
    pages = []
    for number, chunk in enumerate(body.split("\f"), start=1):
        blocks = [
            Block(kind="paragraph", text=" ".join(b.split()))
            for b in re.split(r"\n\s*\n", chunk)
            if b.strip()
        ]
        if blocks:
            pages.append(Page(number=number, blocks=blocks))
    return pages


def _derived_id(path: Path) -> str:
    slug = re.sub(r"[^A-Za-z0-9_\-]+", "_", path.stem).strip("_")[:56] or "source"
    return f"txt_{slug}"


def read_source(path: Path) -> Source:
    """Parse one file into a :class:`Source`, or raise :class:`SourceError` naming it."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SourceError(f"{path.name}: cannot read source ({exc.strerror})") from None
    text = _decode(path, raw).replace("\r\n", "\n")
    is_markdown = path.suffix.lower() in (".md", ".markdown")
    meta, body = _front_matter(path, text, required=is_markdown)
    if meta is None:
        meta = FrontMatter(id=_derived_id(path), title=path.stem)
    pages = _markdown_pages(body) if is_markdown else _text_pages(body)
    if not any(b.kind in ("paragraph", "item") for p in pages for b in p.blocks):
        raise SourceError(f"{path.name}: source has no text after its front matter")
    return Source(
        id=meta.id,
        title=meta.title or path.stem,
        url=meta.url,
        type=meta.type,
        file=path.name,
        sha256=hashlib.sha256(raw).hexdigest(),
        kind="markdown" if is_markdown else "text",
        pages=pages,
    )


def read_sources(directory: Path) -> list[Source]:
    """All sources in a directory, sorted by file name; duplicate ids are an error."""
    if not directory.exists():
        raise SourceError(f"{directory}: sources directory does not exist")
    if not directory.is_dir():
        raise SourceError(f"{directory}: is not a directory (--sources takes a directory of .md/.txt files)")
    files = sorted(p for p in directory.iterdir() if p.is_file() and p.suffix.lower() in SOURCE_SUFFIXES)
    if not files:
        raise SourceError(f"{directory}: no sources (*.md, *.txt) found")
    seen: dict[str, str] = {}
    sources = []
    for path in files:
        source = read_source(path)
        if source.id in seen:
            raise SourceError(f"{path.name}: duplicate source id {source.id!r} (also used by {seen[source.id]})")
        seen[source.id] = path.name
        sources.append(source)
    return sources

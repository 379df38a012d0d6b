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

from pydantic import BaseModel, ValidationError, field_validator

from common.errors import SourceError
from common.markdown import FRONT_MATTER, markdown_blocks
from common.textio import decode_text, read_capped_bytes
from common.validation import one_line_errors

__all__ = ["Block", "Page", "Source", "read_source", "read_sources", "SOURCE_SUFFIXES", "MAX_SOURCE_BYTES"]

SOURCE_SUFFIXES = (".md", ".markdown", ".txt")
MAX_SOURCE_BYTES = 5_000_000
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_\-]{0,63}$")


class Block(BaseModel):
    """A heading, a paragraph or a list item, in document order."""

    kind: Literal["heading", "paragraph", "item", "cites"]
    text: str
    level: int = 0


class Page(BaseModel):
    number: int
    blocks: list[Block] = []


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


def _front_matter(path: Path, text: str, *, required: bool) -> tuple[FrontMatter | None, str]:
    match = FRONT_MATTER.match(text)
    if not match:
        if required:
            raise SourceError(f"{path.name}: missing front matter with an 'id' (start the file with '---')")
        return None, text
    import yaml  # only a source with front matter is parsed (a fresh index checks hashes, not YAML)

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
        raise SourceError(f"{path.name}: front matter: {one_line_errors(exc)}") from None


def _markdown_pages(body: str) -> list[Page]:
    """Split on page markers, then into heading / paragraph / list-item / cites blocks."""
    pages: list[Page] = [Page(number=1)]
    for block in markdown_blocks(body):
        if block.kind == "page":
            if pages[-1].blocks or block.level != pages[-1].number:
                if not pages[-1].blocks:
                    pages.pop()
                pages.append(Page(number=block.level))
        elif block.kind == "heading":
            if block.text:
                pages[-1].blocks.append(Block(kind="heading", text=block.text, level=block.level))
        elif block.text:
            pages[-1].blocks.append(Block(kind=block.kind, text=block.text))
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
    expected = "a UTF-8 markdown or text source"
    raw = read_capped_bytes(path, expected=expected, max_bytes=MAX_SOURCE_BYTES, error=SourceError)
    if not raw.strip():
        raise SourceError(f"{path}: source is empty")
    text = decode_text(path, raw, expected=expected, error=SourceError)
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

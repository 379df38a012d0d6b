"""Heading- and paragraph-aware chunking on sentence boundaries.

Chunks are what retrieval ranks and what answers cite, so they must be small enough
to be specific (about 120-200 words), never cut a sentence, and carry where they came
from (page span, heading path). Chunk ids count from 0 within a source and depend only
on that source's text, so they stay stable while the text is unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, Field, model_validator

from common.sentences import split_sentences, word_count
from indexer.sources import Source

__all__ = ["ChunkParams", "Chunk", "chunk_source", "format_label"]


class ChunkParams(BaseModel):
    """Tunable chunk sizes. Part of the manifest: changing them rebuilds the index."""

    min_words: int = Field(default=120, ge=10)
    max_words: int = Field(default=200, ge=20)
    overlap_sentences: int = Field(default=1, ge=0, le=2)

    @model_validator(mode="after")
    def _order(self) -> "ChunkParams":
        if self.min_words > self.max_words:
            raise ValueError("min_words must not exceed max_words")
        return self


def format_label(chunk_id: str, file: str, first: int, last: int) -> str:
    """The contract's citation label: ``[<source_id>:c<NNNN>] <file name> p<first>-<last>``."""
    return f"[{chunk_id}] {file} p{first}-{last}"


class Chunk(BaseModel):
    chunk_id: str
    source_id: str
    file: str
    title: str
    url: str
    source_type: str
    page_first: int
    page_last: int
    heading_path: list[str]
    text: str
    sentences: list[str]
    #: chunk ids this chunk says it rests on (curated FAQ answers cite the notes)
    cites: list[str] = []

    @property
    def pages(self) -> str:
        return f"p{self.page_first}-{self.page_last}"

    @property
    def label(self) -> str:
        return format_label(self.chunk_id, self.file, self.page_first, self.page_last)

    @property
    def embed_text(self) -> str:
        """What gets embedded and BM25-indexed: the heading path gives the chunk its topic."""
        head = " > ".join(self.heading_path)
        return f"{head}\n{self.text}" if head else self.text


@dataclass(frozen=True)
class _Unit:
    text: str
    words: int
    page: int
    path: tuple[str, ...]
    section_start: bool  # first sentence after a heading or a page break
    section: int  # running number of the heading section the sentence is in


def _units(source: Source) -> tuple[list[_Unit], dict[int, list[str]]]:
    """Flatten a source into sentences that remember their page and heading path.

    Also returns ``section -> cited chunk ids`` from ``<!-- cites: ... -->`` markers.
    """
    units: list[_Unit] = []
    cites: dict[int, list[str]] = {}
    path: list[tuple[int, str]] = []
    section = 0
    for page in source.pages:
        fresh = True
        for block in page.blocks:
            if block.kind == "heading":
                path = [(lvl, t) for lvl, t in path if lvl < block.level] + [(block.level, block.text)]
                fresh = True
                section += 1
                continue
            if block.kind == "cites":
                cites.setdefault(section, []).extend(x for x in block.text.split() if x not in cites.get(section, []))
                continue
            for sentence in split_sentences(block.text):
                units.append(
                    _Unit(sentence, word_count(sentence), page.number, tuple(t for _, t in path), fresh, section)
                )
                fresh = False
    return units, cites


def _main_path(group: list[_Unit]) -> tuple[str, ...]:
    """The heading path that holds most of a chunk's words (a chunk may span a boundary)."""
    totals: dict[tuple[str, ...], int] = {}
    for u in group:
        totals[u.path] = totals.get(u.path, 0) + u.words
    return max(totals, key=lambda p: totals[p])


def _words(units: list[_Unit]) -> int:
    return sum(u.words for u in units)


def _words_to_section_end(units: list[_Unit]) -> list[int]:
    """Words from each unit to the end of its section.

    Lets a boundary decision see whether the next section would fit into the current
    chunk at all.
    """
    remaining = [0] * len(units)
    for i in range(len(units) - 1, -1, -1):
        tail = remaining[i + 1] if i + 1 < len(units) and not units[i + 1].section_start else 0
        remaining[i] = units[i].words + tail
    return remaining


def _closes_at_boundary(current: list[_Unit], unit: _Unit, remaining: int, params: ChunkParams, faq: bool) -> bool:
    """Whether a section or page boundary before ``unit`` closes the ``current`` chunk."""
    if faq and unit.section_start:
        return True  # one curated question and its answer per chunk
    size = _words(current)
    new_page = unit.page != current[-1].page
    # Pages are what citations point at, so a page break closes any but a tiny chunk.
    return size >= params.min_words or (
        size >= params.min_words // 2 and (new_page or size + remaining > params.max_words)
    )


def _overlap(current: list[_Unit], unit: _Unit, params: ChunkParams) -> list[_Unit]:
    """The last sentences carried into the next chunk after a cut inside a section."""
    if not params.overlap_sentences:
        return []
    overlap = current[-params.overlap_sentences :]
    while overlap and _words(overlap) + unit.words > params.max_words:
        overlap = overlap[1:]
    return list(overlap)


def _group_units(units: list[_Unit], params: ChunkParams, faq: bool) -> list[list[_Unit]]:
    """Pack the sentences into groups, one per chunk, in order."""
    remaining = _words_to_section_end(units)
    groups: list[list[_Unit]] = []
    current: list[_Unit] = []
    for i, unit in enumerate(units):
        if current:
            at_boundary = unit.section_start or unit.page != current[-1].page
            if at_boundary and _closes_at_boundary(current, unit, remaining[i], params, faq):
                groups.append(current)
                current = []
            elif _words(current) + unit.words > params.max_words:
                groups.append(current)
                current = [] if at_boundary else _overlap(current, unit, params)
        current.append(unit)
    if current:
        # A short tail is merged back rather than left as a thin chunk of its own.
        if (
            not faq
            and groups
            and _words(current) < params.min_words // 3
            and _words(groups[-1]) + _words(current) <= params.max_words * 1.25
        ):
            groups[-1].extend(u for u in current if u not in groups[-1])
        else:
            groups.append(current)
    return groups


def _make_chunk(source: Source, n: int, group: list[_Unit], section_cites: dict[int, list[str]]) -> Chunk:
    sentences = [u.text for u in group]
    return Chunk(
        chunk_id=f"{source.id}:c{n:04d}",
        source_id=source.id,
        file=source.file,
        title=source.title,
        url=source.url,
        source_type=source.type,
        page_first=min(u.page for u in group),
        page_last=max(u.page for u in group),
        heading_path=list(_main_path(group)),
        text=" ".join(sentences),
        sentences=sentences,
        cites=[c for sec in sorted({u.section for u in group}) for c in section_cites.get(sec, [])],
    )


def chunk_source(source: Source, params: ChunkParams | None = None) -> list[Chunk]:
    """Pack sentences into chunks.

    A chunk is closed at a section or page boundary once it holds ``min_words``, and
    always before it would exceed ``max_words``; a cut inside a section carries the
    last ``overlap_sentences`` sentences into the next chunk so no idea is split from
    its context.
    """
    params = params or ChunkParams()
    units, section_cites = _units(source)
    groups = _group_units(units, params, faq=source.type == "faq")
    return [_make_chunk(source, n, group, section_cites) for n, group in enumerate(groups)]

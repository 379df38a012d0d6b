"""A bigger, realistic knowledge base for the build benchmark: perturbed copies of the notes.

Plain copies would not measure anything: the builder keys vectors by the sha256 of the
text, so identical text is embedded once. Each copy therefore gets its own source id
and file name, and about one word in ten of its prose (at least one per sentence) is swapped for
another word of the notes (chosen by a seeded RNG), so every chunk and sentence is new
text of the same length and vocabulary as the real notes. Front matter keys, page
marks and ``cites`` comments are kept, so the copies parse and chunk like the originals.
"""

from __future__ import annotations

import random
import re
import shutil
from pathlib import Path

__all__ = ["make_sources", "embed_texts"]

_ID_LINE = re.compile(r"^id:\s*(\S+)\s*$")
_WORD = re.compile(r"[A-Za-z]{4,}")
_SENTENCE_END = re.compile(r"(?<=[.!?]) ")
_SWAP_RATE = 0.1


def _perturb_sentence(sentence: str, rng: random.Random, vocab: list[str]) -> str:
    """Swap about one word in ten, and always at least one, so the sentence is new text."""
    words = sentence.split(" ")
    eligible = [i for i, w in enumerate(words) if not w.startswith("#") and _WORD.fullmatch(w)]
    if not eligible:
        return sentence
    chosen = {i for i in eligible if rng.random() < _SWAP_RATE} or {rng.choice(eligible)}
    for i in chosen:
        replacement = rng.choice(vocab)
        words[i] = replacement if replacement != words[i] else replacement + "s"
    return " ".join(words)


def _perturb(line: str, rng: random.Random, vocab: list[str]) -> str:
    return " ".join(_perturb_sentence(part, rng, vocab) for part in _SENTENCE_END.split(line))


def _copy(text: str, copy: int, vocab: list[str]) -> str:
    rng = random.Random(copy)
    out = []
    lines = text.splitlines()
    in_front = bool(lines) and lines[0].strip() == "---"
    for n, line in enumerate(lines):
        if in_front:
            m = _ID_LINE.match(line)
            if m:
                line = f"id: {m.group(1)}_b{copy:03d}"
            elif n > 0 and line.strip() == "---":
                in_front = False
            out.append(line)
        elif line.lstrip().startswith("<!--") or not line.strip():
            out.append(line)
        else:
            out.append(_perturb(line, rng, vocab))
    return "\n".join(out) + "\n"


def make_sources(src: Path, dst: Path, copies: int) -> list[Path]:
    """Write the original sources plus ``copies - 1`` perturbed copies of each into ``dst``."""
    dst.mkdir(parents=True, exist_ok=True)
    originals = sorted(p for p in src.iterdir() if p.is_file() and p.suffix in (".md", ".txt"))
    texts = {p: p.read_text(encoding="utf-8") for p in originals}
    vocab = sorted({w for t in texts.values() for w in _WORD.findall(t)})
    written = []
    for p in originals:
        target = dst / p.name
        shutil.copyfile(p, target)
        written.append(target)
        for copy in range(1, copies):
            target = dst / f"{p.stem}_b{copy:03d}{p.suffix}"
            target.write_text(_copy(texts[p], copy, vocab), encoding="utf-8")
            written.append(target)
    return written


def embed_texts(sources_dir: Path) -> list[str]:
    """The distinct chunk and sentence texts of a corpus, chunks first (a lower bound on what a build embeds)."""
    from indexer.build import load_corpus

    _, chunks = load_corpus(sources_dir)
    seen: dict[str, None] = {}
    for text in [c.embed_text for c in chunks] + [s for c in chunks for s in c.sentences]:
        seen.setdefault(text, None)
    return list(seen)

"""Leave-one-batch-out over labelled message batches: what the learned part is worth on a batch it never saw.

The extractor learns from labelled whole messages (the fresh batches once measured among
them), so scoring a batch it learned from says nothing about unseen wording. Here each named
batch in turn is held out: the extractor is retrained without any named batch but the *other*
ones (into a scratch directory; the committed weights are never touched; minutes per batch
on two cores), and the held-out batch is read by every extractor variant through the same
reading step ``hwbot eval --fresh`` uses. The rules have no fitted parameters, so their rows
are the same as ``eval --fresh --extractor rules``; whoever wrote them says which batches they
looked at (``docs/quality.md``).

Run as ``hwbot eval --lobo fm1.jsonl --lobo fm2.jsonl --lobo fm3.jsonl``.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

from pydantic import BaseModel

from knowledge.evaluation.fresh import FreshMessage, load_fresh_batch, score_messages
from knowledge.recommend.extraction import Extraction
from knowledge.recommend.learned.combine import MODES, ClauseReader, Mode, extract_message
from knowledge.recommend.learned.data import CLAUSE_FILES, MESSAGE_FILES
from knowledge.recommend.reading import read_message

__all__ = ["LoboRow", "leave_one_batch_out", "format_lobo"]


class LoboRow(BaseModel):
    held_out: str
    mode: str
    recall: float
    precision: float
    invented: int
    n: int


def _messages(path: Path) -> list[FreshMessage]:
    items = load_fresh_batch(path)
    if not items or not isinstance(items[0], FreshMessage):
        raise ValueError(f"{path.name}: a leave-one-batch-out needs message batches (text, expect)")
    return items


def leave_one_batch_out(paths: list[Path], work: Path) -> list[LoboRow]:
    """For each batch: the extractor trained without it (and without the others named), then every variant scored on it."""
    from indexer.embedder import Embedder
    from knowledge.recommend.learned.heads import OVERLAY_FILE, load_heads
    from knowledge.recommend.learned.train import train_heads

    batches = [_messages(p) for p in paths]
    named = {p.resolve() for p in paths}
    others = tuple(f for f in MESSAGE_FILES if f.resolve() not in named)
    base = Embedder()
    rows = []
    for k, (path, held) in enumerate(zip(paths, batches)):
        fold = work / f"without_{path.stem}"
        extra = fold / "others.jsonl"
        fold.mkdir(parents=True, exist_ok=True)
        with extra.open("w", encoding="utf-8") as out:
            for j, batch in enumerate(batches):
                for m in batch if j != k else ():
                    out.write(json.dumps({"id": f"{paths[j].stem}-{m.id}", "text": m.text, "expect": m.expect}) + "\n")
        files = (*others, extra)
        train_heads(base, out_dir=fold, message_files=files)
        encoder = Embedder(overlay=fold / OVERLAY_FILE)
        heads = load_heads(fold, model_id=encoder.model_id, probe=encoder.probe(), data_files=CLAUSE_FILES + files)
        reader = ClauseReader(encode=partial(encoder.encode, progress=False), heads=heads)
        for mode in MODES:
            def extract(text: str, reader: ClauseReader = reader, mode: Mode = mode) -> Extraction:
                return extract_message(text, reader, mode)

            got = [{f: e.value for f, e in read_message(m.text, extract=extract).stated.items()} for m in held]
            r = score_messages(held, got)
            rows.append(LoboRow(held_out=path.stem, mode=mode, recall=r.recall.value, precision=r.precision.value,
                                invented=r.with_invented.k, n=len(held)))
    return rows


def format_lobo(rows: list[LoboRow]) -> str:
    head = f"{'held out':<10} {'variant':<9} {'recall':>6} {'precision':>9} {'invented':>9}"
    lines = [head, "-" * len(head)]
    lines += [f"{r.held_out:<10} {r.mode:<9} {r.recall:6.3f} {r.precision:9.3f} {f'{r.invented}/{r.n}':>9}" for r in rows]
    return "\n".join(lines)

"""Query-side texts embedded at index time: what every engine start would otherwise encode.

The answering side compares each question with fixed texts of its own (the intent
prototypes, the curated FAQ's question forms). Encoding them on every start was most of
a cold ``hwbot ask`` beyond the floor (about 0.7 s of 2.1 s). The indexer does not know
what they mean (imports go one way: knowledge -> indexer), so the knowledge layer hands
them to the build as plain strings; the build embeds them with everything else, keyed by
the sha256 of their text (an unchanged text is never embedded twice), and stores them in
the generation: ``query_texts.jsonl`` (one JSON string a line, row order) and
``query_text_vectors.npy``. Their combined hash is in the manifest, so editing the data
they come from makes the index stale and the next command updates it.

:class:`PrefilledEncoder` is how the answering side reads them back: an encoder that
returns stored vectors for texts the index holds and encodes only the rest (an index
built before the texts changed, or by an older hwbot, still answers, just slower).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Protocol

import numpy as np

__all__ = ["QUERY_TEXT_FILES", "query_texts_sha256", "PrefilledEncoder"]

QUERY_TEXT_FILES = ("query_texts.jsonl", "query_text_vectors.npy")


def query_texts_sha256(texts: Sequence[str]) -> str:
    """One hash over the distinct texts in order (as a build stores them); "" when there are none."""
    if not texts:
        return ""
    digest = hashlib.sha256()
    for text in dict.fromkeys(texts):
        digest.update(text.encode("utf-8") + b"\0")
    return digest.hexdigest()


class _Encoder(Protocol):
    def encode(self, texts: list[str]) -> np.ndarray: ...


class PrefilledEncoder:
    """``encode`` that serves texts stored in the index and encodes only the others."""

    def __init__(self, encoder: _Encoder, texts: Sequence[str], vectors: np.ndarray) -> None:
        self.encoder = encoder
        self._rows = {text: row for row, text in enumerate(texts)}
        self._vectors = vectors
        #: texts this engine had to encode itself (0 when the index was built with them)
        self.encoded = 0

    def encode(self, texts: list[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self._rows))
        fresh: dict[str, np.ndarray] = {}
        if missing:
            fresh = dict(zip(missing, np.asarray(self.encoder.encode(missing), dtype=np.float32)))
            self.encoded += len(missing)
        dim = self._vectors.shape[1] if self._vectors.size else (next(iter(fresh.values())).shape[0] if fresh else 0)
        out = np.zeros((len(texts), dim), dtype=np.float32)
        for i, text in enumerate(texts):
            row = self._rows.get(text)
            out[i] = self._vectors[row] if row is not None else fresh[text]
        return out

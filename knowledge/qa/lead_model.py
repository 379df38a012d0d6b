"""Which candidate sentence answers the ask: a small linear model fitted on the question forms.

Cosine with the question finds a sentence's *topic*; the sentence that answers the *ask* is
often another one from the same section, and a generic opener ("choosing between a GPU and
a TPU is a balance ...") is close to every question about the choice. Rather than one more
phrase rule per failure, the lead is ranked by a conditional-logit model over signals the
answerer already has: the sentence's cosine with the question, the rare words they share,
its closest question form, its chunk's rank, its section heading's cosine, how generic it is (its mean cosine with every
sentence of the notes), its cosine with the question turned by the lead map (learned so that a
question lands on the sentence that answers it, :mod:`knowledge.qa.lead_map`), whether it does what the ask type needs (``knowledge.qa.leads``),
whether it is a verdict, a hedge, or a section's first sentence.

The weights are data (``data/lead_model.toml``), fitted by ``hwbot fit-leads``
(:mod:`knowledge.evaluation.lead_training`) on the sentence forms of ``knowledge/sources/forms``
(each form asked as a question, with its own form left out of the forms signal: a form says
which sentence answers it, which is exactly the label) and on the measured outside questions
(a sentence holding all their key terms answers them), with the lead map's cosines out of fold.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np
from pydantic import BaseModel, ConfigDict, model_validator

from indexer.ondisk import Store
from knowledge.qa.lead_map import lead_direction
from knowledge.qa.leads import answers_ask, is_hedge
from knowledge.qa.sides import is_verdict

__all__ = ["FEATURES", "LeadModel", "lead_model", "feature_rows", "generality"]

_FILE = Path(__file__).with_name("data") / "lead_model.toml"

FEATURES = (
    "cos", "overlap", "form", "rank", "generic", "answers", "verdict", "hedge", "first", "length", "heading", "tuned",
)


class _Chunk(Protocol):
    @property
    def heading_row(self) -> int: ...


class _Scored(Protocol):
    """What the features read of a candidate sentence (``knowledge.qa.candidates.Candidate``)."""

    @property
    def text(self) -> str: ...
    @property
    def chunk(self) -> _Chunk: ...
    @property
    def cos(self) -> float: ...
    @property
    def overlap(self) -> float: ...
    @property
    def form(self) -> float: ...
    @property
    def rank(self) -> int: ...
    @property
    def position(self) -> int: ...
    @property
    def vector(self) -> np.ndarray: ...


class LeadModel(BaseModel):
    """Per-feature mean and scale (standardizing), and the fitted weights."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    fitted_on: str
    #: sha256 of the lead map the "tuned" weight was fitted with (knowledge.qa.lead_map)
    lead_map_sha256: str = ""
    mean: dict[str, float]
    scale: dict[str, float]
    weights: dict[str, float]

    @model_validator(mode="after")
    def _complete(self) -> "LeadModel":
        for name, table in (("mean", self.mean), ("scale", self.scale), ("weights", self.weights)):
            if set(table) != set(FEATURES):
                raise ValueError(f"[{name}] must name exactly the features {', '.join(FEATURES)}")
        if any(v <= 0 for v in self.scale.values()):
            raise ValueError("[scale] values must be positive")
        return self

    def vectors(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        def vec(table: dict[str, float]) -> np.ndarray:
            return np.asarray([table[f] for f in FEATURES], dtype=np.float64)

        return vec(self.mean), vec(self.scale), vec(self.weights)

    def score(self, rows: np.ndarray) -> np.ndarray:
        mean, scale, weights = self.vectors()
        return ((rows - mean) / scale) @ weights


@lru_cache(maxsize=1)
def lead_model() -> LeadModel | None:
    """The fitted model, or None before one was fitted (the answerer then ranks by relevance)."""
    if not _FILE.exists():
        return None
    return LeadModel(**tomllib.loads(_FILE.read_text(encoding="utf-8")))


_GENERALITY: dict[int, tuple[Store, np.ndarray]] = {}


def generality(store: Store) -> np.ndarray:
    """The mean of the store's sentence vectors (cached per store): a sentence's cosine with it is
    its mean cosine with every sentence. A generic sentence is close to everything, so it matches
    every question's topic and answers none."""
    cached = _GENERALITY.get(id(store))
    if cached is not None and cached[0] is store:
        return cached[1]
    vecs = np.asarray(store.sentence_vectors, dtype=np.float32)
    out = vecs.mean(axis=0) if len(vecs) else np.zeros(vecs.shape[1] if vecs.ndim == 2 else 0, dtype=np.float32)
    _GENERALITY[id(store)] = (store, out)
    return out


def feature_rows(
    cands: Sequence[_Scored], store: Store, qvec: np.ndarray, kind: str, options: tuple[str, ...] = (),
    lvec: np.ndarray | None = None,
) -> np.ndarray:
    """One row of ``FEATURES`` per candidate (``qvec``: the question's embedding; ``lvec``: its
    direction under the lead map, :mod:`knowledge.qa.lead_map`, by default the shipped map's)."""
    lvec = lead_direction(qvec) if lvec is None else lvec
    mean = generality(store)
    rows = []
    for c in cands:
        generic = float(c.vector @ mean) if mean.shape == c.vector.shape else 0.0
        row = c.chunk.heading_row
        heading = float(store.heading_vectors[row] @ qvec) if 0 <= row < len(store.heading_vectors) else 0.0
        rows.append([
            c.cos, c.overlap, max(0.0, c.form), 1.0 / (c.rank + 1), generic,
            float(answers_ask(kind, c.text, options)), float(is_verdict(c.text)), float(is_hedge(c.text)),
            float(c.position == 0), min(len(c.text.split()), 60) / 60.0,
            heading, float(c.vector @ lvec),
        ])
    return np.asarray(rows, dtype=np.float64).reshape(len(cands), len(FEATURES))


"""What reads clauses (the encoder and the heads) and one head's reading of one clause.

Their own module because both the combining step (:mod:`.combine`) and the union fields' re-reading
(:mod:`.unions`) speak of them, and :mod:`.combine` calls :mod:`.unions`: kept in either, the two
modules named each other.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from knowledge.recommend.learned.clauses import Clause

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from knowledge.recommend.learned.heads import Heads

__all__ = ["ClauseReader", "Reading"]


@dataclass
class ClauseReader:
    """The encoder and the heads: what reads clauses. ``encode`` maps texts to unit vectors."""

    encode: Callable[[Sequence[str]], "np.ndarray"]
    heads: "Heads"


@dataclass(frozen=True)
class Reading:
    """One head's best value for one clause, with its probability and whether a modifier gates it."""

    field: str
    value: str
    p: float
    clause: Clause
    gated: bool

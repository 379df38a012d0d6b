"""Recommendation objects shared by every front end.

The CLI, REPL, Slack app and FAQ batch render these same objects; ``to_contract()``
produces exactly the ``recommend --json`` shape DESIGN.md promises.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

__all__ = ["Reason", "Flip", "Recommendation", "RecommendationKind", "VERDICT_LABELS"]

RecommendationKind = Literal["gpu", "tpu", "gpu_then_tpu"]

#: The one human label of each verdict, used by every front end.
VERDICT_LABELS: dict[str, str] = {"gpu": "GPU", "tpu": "TPU", "gpu_then_tpu": "GPU now, TPU later"}


class Reason(BaseModel):
    factor: str
    effect: str
    citations: list[str] = Field(default_factory=list)


class Flip(BaseModel):
    field: str
    value: str
    recommendation: RecommendationKind


class Recommendation(BaseModel):
    recommendation: RecommendationKind
    confidence: float
    scores: dict[str, float]
    reasons: list[Reason] = Field(default_factory=list)
    caveats: list[str] = Field(default_factory=list)
    flips: list[Flip] = Field(default_factory=list)
    #: hard constraints that ruled an option out, e.g. {"tpu": ["TPU is only on Google Cloud ..."]}
    blocked: dict[str, list[str]] = Field(default_factory=dict)

    def to_contract(self) -> dict:
        return {
            "recommendation": self.recommendation,
            "confidence": self.confidence,
            "scores": dict(self.scores),
            "reasons": [r.model_dump() for r in self.reasons],
            "caveats": list(self.caveats),
            "flips": [f.model_dump() for f in self.flips],
        }

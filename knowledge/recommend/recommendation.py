"""Recommendation objects shared by every front end.

The CLI, REPL, Slack app and FAQ batch render these same objects; ``to_contract()``
produces exactly the ``recommend --json`` shape DESIGN.md promises: the original keys
first, then the extensions (``fit``, ``blockers``, ``todo``, ``next_questions``, and a
``direction`` on every reason).
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, Field

__all__ = ["Reason", "Flip", "BlockerItem", "Recommendation", "RecommendationKind", "VERDICTS", "FitLevel", "VERDICT_LABELS"]

#: The three verdicts, ordered from GPU to TPU (the engine ranks them in this order).
RecommendationKind = Literal["gpu", "gpu_then_tpu", "tpu"]
#: The one tuple of verdicts, in that order; every other module takes it from here.
VERDICTS: tuple[RecommendationKind, ...] = get_args(RecommendationKind)
FitLevel = Literal["low", "medium", "high"]

#: The one human label of each verdict, used by every front end.
VERDICT_LABELS: dict[str, str] = {"gpu": "GPU", "tpu": "TPU", "gpu_then_tpu": "GPU now, TPU later"}


class Reason(BaseModel):
    """One answer (or the GPU default) and how it bears on the verdict.

    ``factor`` is the condition and the words; ``effect`` is machine-readable (``fit +4``,
    ``blocker: kernels.port_critical``, ``gate: no TPU here``, ``default``); ``direction``
    says whether it argues *for* the verdict or *against* it.
    """

    factor: str
    effect: str
    citations: list[str] = []
    direction: Literal["for", "against"] = "for"
    #: ``effect`` in words for people ("must be fixed before a TPU"); not part of the JSON contract,
    #: whose reasons keep exactly factor, effect, citations and direction
    role: str = Field(default="", exclude=True)

    @property
    def field(self) -> str | None:
        """The profile field this reason answers (None for the GPU default)."""
        head, sep, _ = self.factor.partition(": ")
        name, eq, _ = head.partition(" = ")
        return name if sep and eq else None

    @property
    def value(self) -> str | None:
        head, sep, _ = self.factor.partition(": ")
        _, eq, value = head.partition(" = ")
        return value if sep and eq else None

    @property
    def sentence(self) -> str:
        """The explanation alone, without the ``field = value:`` or ``default:`` head."""
        head, sep, tail = self.factor.partition(": ")
        return tail if sep and (" = " in head or head == "default") else self.factor

    @property
    def decides(self) -> bool:
        """Whether this answer alone rules a TPU out or blocks it (a ``gate:`` or ``blocker:`` effect)."""
        return self.effect.startswith(("gate:", "blocker:"))


class BlockerItem(BaseModel):
    """A readiness blocker: what stands between the team and a TPU, sized and cited."""

    id: str
    text: str
    effort: str
    citations: list[str] = []


class Flip(BaseModel):
    field: str
    value: str
    recommendation: RecommendationKind


class Recommendation(BaseModel):
    recommendation: RecommendationKind
    confidence: float
    scores: dict[str, float]
    reasons: list[Reason] = []
    caveats: list[str] = []
    flips: list[Flip] = []
    #: hard constraints that ruled an option out, e.g. {"tpu": ["TPU is only on Google Cloud ..."]}
    blocked: dict[str, list[str]] = {}
    fit: FitLevel = "low"
    #: ready | pending | fixable | far | gated (not in the contract; front ends may show it)
    readiness: str = "ready"
    blockers: list[BlockerItem] = []
    #: the ordered steps of a ``gpu_then_tpu`` verdict (empty otherwise)
    todo: list[str] = []
    #: unknown fields that alone hold a ``pending`` verdict back from a plain TPU (an answer to
    #: them could add a blocker; nothing stated does): the verdict waits on them
    waits_on: list[str] = []
    #: "revisit if ..." for a GPU verdict whose fit is there but whose blockers are too far
    revisit: list[str] = []
    #: unknown fields whose answer could change the verdict, most decisive first
    next_questions: list[str] = []

    def to_contract(self) -> dict:
        return {
            "recommendation": self.recommendation,
            "confidence": self.confidence,
            "scores": dict(self.scores),
            "reasons": [r.model_dump() for r in self.reasons],
            "caveats": list(self.caveats),
            "flips": [f.model_dump() for f in self.flips],
            "fit": self.fit,
            "blockers": [b.model_dump() for b in self.blockers],
            "todo": list(self.todo),
            "next_questions": list(self.next_questions),
        }

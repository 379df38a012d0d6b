"""The shapes of the rule files (factors, blockers, caveats, the table), as pydantic models.

Kept apart from the loader (:mod:`knowledge.recommend.rules`) so each stays small: this
module says what a valid entry looks like; the loader finds the files, checks the
citations against the notes and assembles the :class:`RuleSet`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from knowledge.recommend.profile import FIELD_VALUES, UNKNOWN
from knowledge.recommend.recommendation import VERDICTS, RecommendationKind

__all__ = ["VERDICTS", "FIT_LEVELS", "READINESS", "_ID", "_GENERIC_TERMS", "_Cited", "_one_line", "_Entry", "Factor", "Blocker", "Far", "Caveat", "DefaultReason", "DecisionParams", "TableRow", "Prior", "_RuleFile", "RuleSet"]

#: The verdicts in order from "stay on GPUs" to "TPU now"; monotonicity is measured on it.
FIT_LEVELS: tuple[str, ...] = ("low", "medium", "high")
#: Readiness from best to worst.
READINESS: tuple[str, ...] = ("ready", "pending", "fixable", "far")

_ID = re.compile(r"^[a-z0-9][a-z0-9_.\-]{0,63}$")
#: Terms too generic to show that a chunk speaks of an entry's subject.
_GENERIC_TERMS = {"gpu", "gpus", "tpu", "tpus", "the", "a", "an", "and", "or", "of", "to", "model", "models"}


class _Cited(BaseModel):
    """Identity and evidence, shared by every entry."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    subject: tuple[str, ...] = Field(min_length=1)
    citations: tuple[str, ...] = Field(min_length=1)

    @field_validator("id")
    @classmethod
    def _id_shape(cls, v: str) -> str:
        if not _ID.match(v):
            raise ValueError("id must be lower-case letters, digits, '.', '_' or '-'")
        return v

    @field_validator("subject")
    @classmethod
    def _specific_subject(cls, subject: tuple[str, ...]) -> tuple[str, ...]:
        for term in subject:
            if not term.strip() or term.strip().lower() in _GENERIC_TERMS:
                raise ValueError(f"subject term {term!r} is too generic to check a citation against")
        return subject


def _one_line(v: str) -> str:
    if "\n" in v:
        raise ValueError("text must be one line")
    return v.strip()


class _Entry(_Cited):
    """An entry with a condition on the answers (all fields must match)."""

    when: dict[str, tuple[str, ...]] = {}

    @field_validator("when")
    @classmethod
    def _known_fields_and_values(cls, when: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        for field, values in when.items():
            if field not in FIELD_VALUES:
                raise ValueError(f"unknown field {field!r}; allowed fields: {', '.join(FIELD_VALUES)}")
            if not values:
                raise ValueError(f"field {field!r} lists no values")
            for value in values:
                if value not in FIELD_VALUES[field]:
                    raise ValueError(
                        f"field {field!r} has value {value!r}; allowed values: {', '.join(FIELD_VALUES[field])}"
                    )
        return when

    def matches(self, answers: Mapping[str, str]) -> bool:
        """All conditions hold for these answers (an empty condition always holds)."""
        return all(answers.get(field, UNKNOWN) in values for field, values in self.when.items())


class Factor(_Entry):
    """One answer's reason: its words, which way it leans, and its fit points."""

    explanation: str = Field(min_length=1, max_length=240)
    leans: Literal["tpu", "gpu"]
    fit: int = Field(default=0, ge=0, le=10)

    _line = field_validator("explanation")(lambda cls, v: _one_line(v))

    @model_validator(mode="after")
    def _one_field(self) -> "Factor":
        if len(self.when) != 1:
            raise ValueError("a factor's condition ('when') names exactly one field")
        (values,) = self.when.values()
        if UNKNOWN in values:
            raise ValueError("a factor explains a real answer, not 'unknown'")
        return self

    @property
    def field(self) -> str:
        return next(iter(self.when))


class Blocker(_Entry):
    """What stands between the team and a TPU: a gate, a far blocker, or a sized to-do."""

    kind: Literal["gate", "far", "fixable"]
    rank: int = Field(ge=0)
    effort: Literal["none", "days", "weeks", "months", "until stable"]
    text: str = Field(min_length=1, max_length=300)

    _line = field_validator("text")(lambda cls, v: _one_line(v))

    @model_validator(mode="after")
    def _has_condition(self) -> "Blocker":
        if not self.when:
            raise ValueError("a blocker needs a condition ('when')")
        if any(UNKNOWN in values for values in self.when.values()):
            raise ValueError("a blocker cannot fire on 'unknown' (unknown answers are handled as pending)")
        return self


class Far(_Entry):
    """Blockers (plus optional conditions) that together put a TPU out of reach for now."""

    all: tuple[str, ...] = Field(min_length=1)
    revisit: str = Field(min_length=1, max_length=240)

    _line = field_validator("revisit")(lambda cls, v: _one_line(v))


class Caveat(_Entry):
    """Advice attached to a decided recommendation when its condition holds."""

    text: str = Field(min_length=1, max_length=400)
    recommended: tuple[RecommendationKind, ...] = Field(min_length=1)

    _line = field_validator("text")(lambda cls, v: _one_line(v))


class DefaultReason(_Cited):
    """Why GPU is the default, cited; shown when nothing else argues for a GPU verdict."""

    explanation: str = Field(min_length=1, max_length=240)


class DecisionParams(BaseModel):
    """Fit thresholds: data, so tuning them is a reviewed one-line change."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    fit_high: int = Field(ge=1)
    fit_medium: int = Field(ge=1)
    #: How an unanswered fit question counts toward the fit level the table reads:
    #: "worst" (0 points) or "expected" (its points averaged under the priors, rounded down).
    #: A plain TPU verdict always needs the fit the known answers establish on their own.
    unknown_fit: Literal["worst", "expected"] = "worst"

    @model_validator(mode="after")
    def _ordered(self) -> "DecisionParams":
        if self.fit_medium > self.fit_high:
            raise ValueError("fit_medium must not exceed fit_high")
        return self


class TableRow(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    fit: Literal["low", "medium", "high"]
    verdicts: dict[Literal["ready", "pending", "fixable", "far"], RecommendationKind]


class Prior(BaseModel):
    """How likely each answer is before anyone says, with why (``priors.toml``).

    ``weights`` need not sum to 1 (they are normalized); a value left out weighs 1.
    A rationale that rests on the notes cites them; "no basis to prefer any" needs no citation.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    weights: dict[str, float] = {}
    rationale: str = Field(min_length=1)
    subject: tuple[str, ...] = ()
    citations: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _cited_with_subject(self) -> "Prior":
        if self.citations and not self.subject:
            raise ValueError("a cited prior needs a subject its chunks mention")
        return self


class _RuleFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    factor: list[dict[str, Any]] = []
    blocker: list[dict[str, Any]] = []
    far: list[dict[str, Any]] = []
    caveat: list[dict[str, Any]] = []
    decision: dict[str, Any] | None = None
    order: dict[str, list[str]] | None = None
    priors: dict[str, dict[str, Any]] | None = None
    table: list[dict[str, Any]] | None = None
    default_reason: dict[str, Any] | None = None


class RuleSet(BaseModel):
    """The whole decision model, validated, with where each entry came from."""

    model_config = ConfigDict(frozen=True)

    factors: tuple[Factor, ...]
    blockers: tuple[Blocker, ...]
    fars: tuple[Far, ...]
    caveats: tuple[Caveat, ...]
    decision: DecisionParams
    #: field -> its real values from best for a TPU to worst
    order: dict[str, tuple[str, ...]]
    #: field -> value -> prior weight (normalized, every real value present)
    priors: dict[str, dict[str, float]]
    #: field -> why its prior is what it is (``priors.toml``)
    prior_rationale: dict[str, str] = {}
    #: (fit level, readiness) -> verdict
    table: dict[tuple[str, str], str]
    default_reason: DefaultReason
    #: chunk id -> citation label, for every chunk any entry cites.
    labels: dict[str, str]
    #: entry id -> file name, so errors and docs can point at the file.
    origin: dict[str, str]

    def label(self, chunk_id: str) -> str:
        return self.labels[chunk_id]

    def factor_for(self, field: str, value: str) -> Factor | None:
        for factor in self.factors:
            if factor.field == field and value in factor.when[field]:
                return factor
        return None

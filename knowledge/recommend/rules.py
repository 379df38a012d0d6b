"""The scoring rules: TOML data in ``knowledge/rules/``, validated by pydantic when loaded.

Why data: the reasoning of the recommendation lives in one reviewable place, each
weight next to the sentence that justifies it and the chunk of the notes it rests on.
Why strict: a rule that names a field or value the profile does not have would simply
never fire, and a citation to a chunk that moved would cite the wrong text. Both fail
at load with a :class:`~common.errors.RuleError` naming the rule and its file.

Three kinds of entries, in any ``*.toml`` file of the rules directory:

* ``[[rule]]``: a condition on the profile and either ``points`` toward options
  (additive) or ``blocks`` (a hard constraint that removes options);
* ``[[caveat]]``: a warning shown when its condition holds *and* the decided
  recommendation is one of ``recommended``;
* ``[decision]`` (exactly once): the thresholds of the decision and of confidence.

Citations are validated against the chunks computed from the sources alone (no model,
no torch), and each cited chunk must mention one of the rule's ``subject`` terms, so a
rule cannot cite a chunk about something else.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from common.errors import HwbotError, RuleError
from indexer.chunking import Chunk
from indexer.corpus import catalog
from knowledge.paths import SOURCES_DIR
from knowledge.recommend.profile import FIELD_VALUES, UNKNOWN

#: The shipped rule files, package data beside this module.
RULES_DIR = Path(__file__).resolve().parent / "rules"

__all__ = [
    "OPTIONS",
    "Option",
    "Rule",
    "Caveat",
    "DecisionParams",
    "RuleSet",
    "chunk_catalog",
    "load_rules",
    "parse_rule_files",
]

Option = Literal["gpu", "tpu", "gpu_then_tpu"]
#: The options in order from "stay on GPUs" to "TPU now"; also the tie-break order.
OPTIONS: tuple[str, ...] = ("gpu", "gpu_then_tpu", "tpu")

_ID = re.compile(r"^[a-z0-9][a-z0-9_.\-]{0,63}$")
#: Terms too generic to show that a chunk speaks of a rule's subject.
_GENERIC_TERMS = {"gpu", "gpus", "tpu", "tpus", "the", "a", "an", "and", "or", "of", "to", "model", "models"}


class _Entry(BaseModel):
    """What rules and caveats share: identity, condition, wording and evidence."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    when: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    subject: tuple[str, ...] = Field(min_length=1)
    citations: tuple[str, ...] = Field(min_length=1)

    @field_validator("id")
    @classmethod
    def _id_shape(cls, v: str) -> str:
        if not _ID.match(v):
            raise ValueError("id must be lower-case letters, digits, '.', '_' or '-'")
        return v

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

    @field_validator("subject")
    @classmethod
    def _specific_subject(cls, subject: tuple[str, ...]) -> tuple[str, ...]:
        for term in subject:
            if not term.strip() or term.strip().lower() in _GENERIC_TERMS:
                raise ValueError(f"subject term {term!r} is too generic to check a citation against")
        return subject

    def matches(self, answers: Mapping[str, str]) -> bool:
        """All conditions hold for these answers (an empty condition always holds)."""
        return all(answers.get(field, UNKNOWN) in values for field, values in self.when.items())

    def condition_text(self) -> str:
        """``stage = exploration`` / ``cloud = multi_cloud or on_prem``, joined with ``and``."""
        parts = [f"{field} = {' or '.join(values)}" for field, values in self.when.items()]
        return " and ".join(parts) if parts else "always"


class Rule(_Entry):
    """A scoring rule: additive points toward options, or a hard constraint that blocks some."""

    explanation: str = Field(min_length=1, max_length=240)
    points: dict[Option, int] = Field(default_factory=dict)
    blocks: tuple[Option, ...] = ()

    @field_validator("explanation")
    @classmethod
    def _one_line(cls, v: str) -> str:
        if "\n" in v:
            raise ValueError("explanation must be one line")
        return v.strip()

    @model_validator(mode="after")
    def _one_effect(self) -> "Rule":
        if len(self.when) != 1:
            # One field per rule keeps scores additive per answer, which is what makes the
            # worst case over unknown answers (and so the decision) exact and monotone.
            raise ValueError("a rule's condition ('when') names exactly one field")
        if bool(self.points) == bool(self.blocks):
            raise ValueError("a rule has exactly one effect: 'points' or 'blocks'")
        if any(p == 0 for p in self.points.values()):
            raise ValueError("points must be non-zero")
        if "gpu" in self.blocks:
            raise ValueError("'gpu' cannot be blocked: it is the fallback that runs everywhere")
        if "tpu" in self.blocks and "gpu_then_tpu" not in self.blocks:
            raise ValueError("blocking 'tpu' must also block 'gpu_then_tpu' (that path ends on a TPU)")
        return self

    @property
    def is_constraint(self) -> bool:
        return bool(self.blocks)


class Caveat(_Entry):
    """A warning attached to a decided recommendation when its condition holds."""

    text: str = Field(min_length=1, max_length=400)
    recommended: tuple[Option, ...] = Field(min_length=1)

    @field_validator("text")
    @classmethod
    def _one_line(cls, v: str) -> str:
        if "\n" in v:
            raise ValueError("caveat text must be one line")
        return v.strip()


class DecisionParams(BaseModel):
    """The decision's thresholds: data, so tuning them is a reviewed one-line change."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    #: TPU must beat GPU by at least this many points, even in the worst case over the
    #: unknown answers, to be recommended outright.
    clear_margin: int = Field(ge=1)
    confidence_base: float = Field(ge=0.0, le=1.0)
    confidence_span: float = Field(ge=0.0, le=1.0)
    #: Margin (points) at which about 63% of the span is reached.
    confidence_scale: float = Field(gt=0.0)
    unknown_penalty: float = Field(ge=0.0, le=0.2)
    confidence_floor: float = Field(ge=0.0, le=1.0)
    confidence_cap: float = Field(ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _ordered(self) -> "DecisionParams":
        if not self.confidence_floor <= self.confidence_cap:
            raise ValueError("confidence_floor must not exceed confidence_cap")
        if self.confidence_base + self.confidence_span > 1.0:
            raise ValueError("confidence_base + confidence_span must be at most 1")
        return self


class _RuleFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rule: list[dict[str, Any]] = Field(default_factory=list)
    caveat: list[dict[str, Any]] = Field(default_factory=list)
    decision: dict[str, Any] | None = None


class RuleSet(BaseModel):
    """Every rule, caveat and the decision parameters, with where each came from."""

    model_config = ConfigDict(frozen=True)

    rules: tuple[Rule, ...]
    caveats: tuple[Caveat, ...]
    decision: DecisionParams
    #: chunk id -> citation label, for every chunk any entry cites.
    labels: dict[str, str]
    #: entry id -> file name, so errors and docs can point at the file.
    origin: dict[str, str]

    def label(self, chunk_id: str) -> str:
        return self.labels[chunk_id]


@lru_cache(maxsize=8)
def chunk_catalog(sources_dir: Path = SOURCES_DIR) -> dict[str, Chunk]:
    """The citable chunks of a sources directory, computed once per process.

    ``indexer.corpus`` is the indexer's own read → clean → chunk pipeline without NumPy or
    FAISS, so validating citations costs milliseconds and ``hwbot recommend`` stays fast.
    """
    return catalog(Path(sources_dir))


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err.get("loc", ()) if p != "__root__")
    msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
    return f"{loc}: {msg}" if loc else msg


def _check_citations(entry: _Entry, catalog: dict[str, Chunk], where: str) -> None:
    terms = [t.lower() for t in entry.subject]
    for chunk_id in entry.citations:
        chunk = catalog.get(chunk_id)
        if chunk is None:
            known = ", ".join(sorted(catalog)) or "none"
            raise RuleError(f"{where}: cites chunk {chunk_id!r}, which is not in the notes (chunks: {known})")
        text = " ".join([*chunk.heading_path, chunk.text]).lower()
        if not any(term in text for term in terms):
            raise RuleError(
                f"{where}: cited chunk {chunk_id} does not mention its subject ({', '.join(entry.subject)})"
            )


def parse_rule_files(files: dict[str, str], catalog: dict[str, Chunk]) -> RuleSet:
    """Validate rule files given as name -> TOML text against a chunk catalog.

    Separate from :func:`load_rules` so tests can feed broken files without touching disk.
    """
    rules: list[Rule] = []
    caveats: list[Caveat] = []
    decision: DecisionParams | None = None
    origin: dict[str, str] = {}
    for name in sorted(files):
        try:
            raw = tomllib.loads(files[name])
        except tomllib.TOMLDecodeError as exc:
            raise RuleError(f"rules file {name}: invalid TOML: {exc}") from None
        try:
            parsed = _RuleFile.model_validate(raw)
        except ValidationError as exc:
            raise RuleError(f"rules file {name}: {_first_error(exc)}") from None
        for kind, model, bucket in (("rule", Rule, rules), ("caveat", Caveat, caveats)):
            for i, data in enumerate(getattr(parsed, kind)):
                rid = data.get("id") if isinstance(data.get("id"), str) else f"#{i + 1}"
                where = f"{kind} {rid!r} in {name}"
                try:
                    entry = model.model_validate(data)
                except ValidationError as exc:
                    raise RuleError(f"{where}: {_first_error(exc)}") from None
                if entry.id in origin:
                    raise RuleError(f"{where}: duplicate id (also in {origin[entry.id]})")
                _check_citations(entry, catalog, where)
                origin[entry.id] = name
                bucket.append(entry)  # type: ignore[arg-type]
        if parsed.decision is not None:
            if decision is not None:
                raise RuleError(f"rules file {name}: a second [decision] table (only one is allowed)")
            try:
                decision = DecisionParams.model_validate(parsed.decision)
            except ValidationError as exc:
                raise RuleError(f"[decision] in {name}: {_first_error(exc)}") from None
    if decision is None:
        raise RuleError("rules: no [decision] table in any rules file")
    if not rules:
        raise RuleError("rules: no [[rule]] entries found")
    cited = {c for entry in (*rules, *caveats) for c in entry.citations}
    labels = {c: catalog[c].label for c in sorted(cited)}
    return RuleSet(rules=tuple(rules), caveats=tuple(caveats), decision=decision, labels=labels, origin=origin)


def load_rules(rules_dir: Path = RULES_DIR, sources_dir: Path = SOURCES_DIR) -> RuleSet:
    """Load and validate every ``*.toml`` in ``rules_dir`` (cached per directory pair)."""
    return _load_rules_cached(Path(rules_dir), Path(sources_dir))


@lru_cache(maxsize=8)
def _load_rules_cached(rules_dir: Path, sources_dir: Path) -> RuleSet:
    if not rules_dir.is_dir():
        raise RuleError(f"{rules_dir}: rules directory not found")
    files: dict[str, str] = {}
    for path in sorted(rules_dir.glob("*.toml")):
        try:
            files[path.name] = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise RuleError(f"rules file {path.name}: cannot read: {exc}") from None
    if not files:
        raise RuleError(f"{rules_dir}: no *.toml rules files")
    try:
        catalog = chunk_catalog(sources_dir)
    except HwbotError as exc:
        raise RuleError(f"cannot read the notes to check rule citations: {exc.message}") from None
    return parse_rule_files(files, catalog)


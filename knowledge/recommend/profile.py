"""The workload profile: the intake's answers, exactly as the contract in DESIGN.md lists them.

Every field may be missing or ``"unknown"``; both mean "we do not know", and the
scoring engine treats them the same way. Invalid values raise :class:`ProfileError`
naming the field and its allowed values, so every front end can show one line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, ValidationError

from common.errors import ProfileError
from common.textio import read_text_file
from common.validation import one_line_errors

__all__ = ["WorkloadProfile", "FIELD_VALUES", "UNKNOWN", "SAID_UNKNOWN", "is_answer", "load_profile", "parse_profile"]

UNKNOWN = "unknown"
#: Fields whose "we do not know" is an answer of its own, listed among the values in the contract
#: (DESIGN.md: ``data_pipeline``: cannot_keep_up, unknown, keeps_up). "We never measured whether
#: storage keeps up" answers the data-pipeline question; a message that says so has stated it, so
#: the extractor may set it and the intake does not ask it again. The engine still scores it as
#: unknown. Every other field's "unknown" is only the absence of an answer.
SAID_UNKNOWN: frozenset[str] = frozenset({"data_pipeline"})


def is_answer(field: str, value: str) -> bool:
    """Whether saying ``value`` answers ``field``: any value but unknown, and unknown where it is said."""
    return value != UNKNOWN or field in SAID_UNKNOWN
#: The default cap of a profile file (the CLI passes ``HWBOT_MAX_PROFILE_BYTES``).
MAX_PROFILE_BYTES = 64_000

Stage = Literal["exploration", "stabilizing", "production", "unknown"]
ArchitectureChanges = Literal["often", "sometimes", "rarely", "unknown"]
CustomKernels = Literal["none", "some", "critical", "unknown"]
Framework = Literal["pytorch", "jax", "tensorflow", "other", "unknown"]
TeamExpertise = Literal["cuda", "xla", "both", "neither", "unknown"]
Cloud = Literal["google_cloud", "other_single_cloud", "multi_cloud", "on_prem", "unknown"]
Workload = Literal["training", "inference", "both", "unknown"]
Scale = Literal["single_device", "multi_device", "massive", "unknown"]
DataPipeline = Literal["cannot_keep_up", "unknown", "keeps_up"]
Priority = Literal["flexibility", "balanced", "cost_at_scale", "unknown"]
OptimizationTime = Literal["none", "days", "weeks", "unknown"]


class WorkloadProfile(BaseModel):
    """One team's answers. ``extra='forbid'`` so a typo in a field name is an error, not silence."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    stage: Stage = "unknown"
    architecture_changes: ArchitectureChanges = "unknown"
    custom_kernels: CustomKernels = "unknown"
    framework: Framework = "unknown"
    team_expertise: TeamExpertise = "unknown"
    cloud: Cloud = "unknown"
    workload: Workload = "unknown"
    scale: Scale = "unknown"
    data_pipeline: DataPipeline = "unknown"
    priority: Priority = "unknown"
    optimization_time: OptimizationTime = "unknown"

    def known(self) -> dict[str, str]:
        """The answered fields only."""
        return {k: v for k, v in self.model_dump().items() if v != UNKNOWN}

    def unknown_fields(self) -> list[str]:
        return [k for k, v in self.model_dump().items() if v == UNKNOWN]

    def with_value(self, field: str, value: str) -> "WorkloadProfile":
        """A copy with one answer changed, validated (used to verify flips)."""
        return parse_profile({**self.model_dump(), field: value})


def _allowed(field: str) -> tuple[str, ...]:
    """Allowed values of a field, in contract order, with ``unknown`` last."""
    values = [v for v in get_args(WorkloadProfile.model_fields[field].annotation) if v != UNKNOWN]
    return (*values, UNKNOWN)


#: field -> allowed values (``unknown`` last). The intake and the Slack modal are built from this.
FIELD_VALUES: dict[str, tuple[str, ...]] = {name: _allowed(name) for name in WorkloadProfile.model_fields}


def parse_profile(data: Any, *, origin: str = "profile") -> WorkloadProfile:
    """Validate a mapping into a profile, turning pydantic's report into one line.

    ``None`` values count as missing. Values are matched case-insensitively so a
    hand-written ``"PyTorch"`` is accepted.
    """
    if not isinstance(data, dict):
        raise ProfileError(f"{origin}: expected a JSON object of field: value, got {type(data).__name__}")
    # Strings are matched case-insensitively; anything else goes to pydantic unchanged so
    # its report names the wrong type, and every wrong field is reported in one line.
    cleaned = {
        str(key): value.strip().lower() if isinstance(value, str) else value
        for key, value in data.items()
        if value is not None
    }
    try:
        return WorkloadProfile(**cleaned)
    except ValidationError as exc:
        raise ProfileError(f"{origin}: {one_line_errors(exc, allowed=FIELD_VALUES)}") from None


def load_profile(path: str | Path, *, max_bytes: int = MAX_PROFILE_BYTES) -> WorkloadProfile:
    """Read a profile JSON file of at most ``max_bytes``; every failure is a one-line :class:`ProfileError`."""
    p = Path(path)
    name = str(p)
    text = read_text_file(p, expected="a JSON file", max_bytes=max_bytes, error=ProfileError)
    if not text.strip():
        raise ProfileError(f"{name}: empty file, expected a JSON object")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProfileError(f"{name}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except (RecursionError, ValueError) as exc:  # nesting too deep, or an integer too long to parse
        raise ProfileError(f"{name}: unusable JSON ({type(exc).__name__}: nested too deeply or a number too large)") from None
    return parse_profile(data, origin=name)

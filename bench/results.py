"""What a benchmark run produces, as data: sections of tables plus targets checked.

Each measuring module returns a :class:`Section`; the report renders sections without
knowing what they measured, and the smoke test checks their structure. Keeping the
raw numbers (``data``) beside the rendered rows lets the plot and the tests read the
figures instead of parsing markdown.
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, Field

__all__ = ["Target", "Table", "Section", "Run", "fmt_ms", "fmt_ratio", "fmt_s"]


class Target(BaseModel):
    """One goal from the issue, the figure measured for it, and whether it holds."""

    name: str
    goal: str
    measured: str
    #: None when the figure could not be measured in this run (the note says why).
    holds: bool | None


class Table(BaseModel):
    headers: list[str]
    rows: list[list[str]]


class Section(BaseModel):
    key: str
    title: str
    intro: str
    tables: list[Table] = Field(default_factory=list)
    targets: list[Target] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    #: the raw figures behind the tables (JSON-safe), for plots and checks
    data: dict[str, Any] = Field(default_factory=dict)
    seconds: float = 0.0


class Run(BaseModel):
    mode: str
    started_at: str
    seconds: float
    machine: dict[str, Any]
    sections: list[Section]

    def targets(self) -> list[Target]:
        return [t for s in self.sections for t in s.targets]


def fmt_ms(seconds: float) -> str:
    return "n/a" if math.isnan(seconds) else f"{seconds * 1000:.2f} ms"


def fmt_s(seconds: float) -> str:
    return "n/a" if math.isnan(seconds) else f"{seconds:.2f} s"


def fmt_ratio(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.2f}x"

"""The CI floors, judged on the test half only (the tuning half is what calibration saw)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from knowledge.evaluation.devset import EVAL_DIR
from knowledge.evaluation.metrics import HalfReport

__all__ = ["Floors", "load_floors"]


class Floors(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    in_correct_cited: float = Field(ge=0, le=1)
    ood_declined: float = Field(ge=0, le=1)
    false_refusal_max: float = Field(ge=0, le=1)
    lint_violations_max: int = Field(ge=0)

    def failures(self, report: HalfReport) -> list[str]:
        out = []
        if report.in_correct_cited.value < self.in_correct_cited:
            out.append(f"in-domain correct and cited {report.in_correct_cited.value:.3f} < {self.in_correct_cited}")
        if report.ood_declined.value < self.ood_declined:
            out.append(f"out-of-domain declined {report.ood_declined.value:.3f} < {self.ood_declined}")
        if report.false_refusal.value > self.false_refusal_max:
            out.append(f"false refusals {report.false_refusal.value:.3f} > {self.false_refusal_max}")
        if report.lint_violations > self.lint_violations_max:
            out.append(f"{report.lint_violations} answer-lint violations > {self.lint_violations_max}")
        return out


def load_floors(path: Path | None = None) -> Floors:
    path = path or EVAL_DIR / "floors.toml"
    return Floors(**tomllib.loads(path.read_text(encoding="utf-8")))

"""Where the shipped knowledge lives (package data, next to this file)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["SOURCES_DIR", "RULES_DIR", "EVAL_DIR"]

_HERE = Path(__file__).resolve().parent
SOURCES_DIR = _HERE / "sources"
RULES_DIR = _HERE / "rules"
EVAL_DIR = _HERE / "eval"

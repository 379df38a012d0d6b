"""Where the shipped notes live (package data, next to this file).

Rules and the dev set live beside the code that reads them (``knowledge.recommend`` and
``knowledge.evaluation``); only the notes are shared by every subsystem.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["SOURCES_DIR"]

SOURCES_DIR = Path(__file__).resolve().parent / "sources"

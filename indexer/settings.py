"""Paths and tunables read from the environment (pydantic-settings).

Only what the indexer itself needs lives here; Slack's settings live in ``bot.slack``.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["IndexSettings", "default_index_dir"]


def default_index_dir() -> Path:
    """A per-user cache location, so several checkouts or users never share a half-built index."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "hwbot" / "index"


class IndexSettings(BaseSettings):
    """``HWBOT_INDEX_DIR`` selects where the built index lives."""

    model_config = SettingsConfigDict(env_prefix="HWBOT_", extra="ignore")

    index_dir: Path = Field(default_factory=default_index_dir)

"""The one settings object: every path and limit hwbot reads from the environment.

The environment is read here and nowhere else. Front ends build one
:class:`HwbotSettings` at start-up and pass it down explicitly, so a test (or a second
engine in one process) can point at other directories without touching ``os.environ``.
Slack's credentials live in ``bot.slack.settings`` because only the Slack app needs them.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import Field, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from common.errors import ConfigError
from common.validation import one_line_errors

__all__ = [
    "HwbotSettings",
    "load_settings",
    "default_index_dir",
    "default_state_dir",
    "default_feedback_db",
    "shipped_sources_dir",
]


def _xdg(var: str, *fallback: str) -> Path:
    base = os.environ.get(var) or str(Path.home().joinpath(*fallback))
    return Path(base) / "hwbot"


def default_index_dir() -> Path:
    """A per-user cache location, so several checkouts or users never share a half-built index."""
    return _xdg("XDG_CACHE_HOME", ".cache") / "index"


def default_state_dir() -> Path:
    """Dialogs and Slack state outlive the cache, so they sit under the XDG state dir."""
    return _xdg("XDG_STATE_HOME", ".local", "state")


def default_feedback_db() -> Path:
    """Feedback is user data: it outlives both the index cache and the state dir."""
    return _xdg("XDG_DATA_HOME", ".local", "share") / "feedback.sqlite3"


def shipped_sources_dir() -> Path:
    """The notes shipped as package data in ``knowledge/sources`` (found without importing it)."""
    return Path(__file__).resolve().parent.parent / "knowledge" / "sources"


class HwbotSettings(BaseSettings):
    """``HWBOT_*`` variables. Every field has a safe default, so an empty environment works."""

    model_config = SettingsConfigDict(env_prefix="HWBOT_", extra="ignore")

    index_dir: Path = Field(default_factory=default_index_dir)
    state_dir: Path = Field(default_factory=default_state_dir)
    feedback_db: Path = Field(default_factory=default_feedback_db)
    #: Where notes are read from when no ``--sources`` is given (and no index records another).
    sources_dir: Path = Field(default_factory=shipped_sources_dir)
    #: Input caps: a question, a batch file, a docs file, a profile file.
    max_question_chars: int = Field(default=2000, ge=100)
    max_batch_bytes: int = Field(default=10_000_000, ge=1000)
    max_docs_bytes: int = Field(default=5_000_000, ge=1000)
    max_profile_bytes: int = Field(default=64_000, ge=100)


def load_settings() -> HwbotSettings:
    """Read the environment once; a bad value (``HWBOT_MAX_DOCS_BYTES=lots``) is one ConfigError line."""
    try:
        return HwbotSettings()
    except ValidationError as exc:
        raise ConfigError(f"environment: {one_line_errors(exc)}", hint="fix or unset the HWBOT_* variable") from None

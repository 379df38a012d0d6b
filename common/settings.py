"""The one settings object: every path and limit hwbot reads from the environment.

The environment is read here and nowhere else (the path defaults aside). The CLI builds one :class:`HwbotSettings`
at start-up (:func:`load_settings`) and passes it down explicitly, so a test (or a second
engine in one process) can point at other directories without touching ``os.environ``.
Slack's variables are its ``slack`` section (:class:`common.slack_settings.SlackSettings`),
read in the same construction. The path defaults live in :mod:`common.locations`, which
the CLI also reads, once, to start a cold ask's ONNX session before this module is imported.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from common.errors import ConfigError
from common.locations import default_feedback_db, default_index_dir, default_model_cache_dir, default_state_dir
from common.slack_settings import SECRET_VARIABLES, SlackSettings
from common.validation import one_line_errors

__all__ = [
    "HwbotSettings",
    "load_settings",
]


class HwbotSettings(BaseSettings):
    """``HWBOT_*`` variables. Every field has a safe default, so an empty environment works."""

    model_config = SettingsConfigDict(env_prefix="HWBOT_", extra="ignore")

    index_dir: Path = Field(default_factory=default_index_dir)
    state_dir: Path = Field(default_factory=default_state_dir)
    model_cache_dir: Path = Field(default_factory=default_model_cache_dir)
    feedback_db: Path = Field(default_factory=default_feedback_db)
    #: ``HWBOT_SOURCES_DIR``: the notes to build from, overriding the dir the index records;
    #: unset means the recorded dir, else the shipped notes (``indexer.lifecycle`` decides).
    sources_dir: Path | None = None
    #: Input caps: a question, a batch file, a docs file, a profile file.
    max_question_chars: int = Field(default=2000, ge=100)
    max_batch_bytes: int = Field(default=10_000_000, ge=1000)
    max_docs_bytes: int = Field(default=5_000_000, ge=1000)
    max_profile_bytes: int = Field(default=64_000, ge=100)
    #: Shared state for several hosts (``redis://host:port/db``); unset means SQLite under ``state_dir``.
    redis_url: str | None = None
    #: Key prefix in Redis, so several deployments can share one server.
    redis_prefix: str = "hwbot:"
    #: Slack channel id where "Ask the experts" posts; unset hides the button.
    escalation_channel: str | None = None
    #: The Slack app's variables (``SLACK_*``, ``HWBOT_SLACK_API_URL``, ``HWBOT_ALLOWED_CHANNELS``).
    slack: SlackSettings = Field(default_factory=SlackSettings)

    @field_validator("redis_url", "escalation_channel", "sources_dir", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        # An exported-but-empty variable means "not configured".
        if isinstance(value, str) and not value.strip():
            return None
        return value.strip() if isinstance(value, str) else value


def load_settings() -> HwbotSettings:
    """Read the environment once; a bad value (``HWBOT_MAX_DOCS_BYTES=lots``) is one ConfigError line."""
    try:
        return HwbotSettings()
    except ValidationError as exc:
        # A token's value is never echoed, even when it is what is wrong.
        line = one_line_errors(exc, hide_input=SECRET_VARIABLES)
        raise ConfigError(f"environment: {line}", hint="fix or unset the HWBOT_* or SLACK_* variable") from None

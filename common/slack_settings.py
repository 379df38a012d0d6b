"""Slack configuration: the ``slack`` section of :class:`common.settings.HwbotSettings`.

It is read from the environment in the same construction as the rest of the settings (once,
in the CLI), and checked by :meth:`SlackSettings.check_mode` before anything connects. Tokens are held as :class:`pydantic.SecretStr`, so a stray ``repr()``, f-string or
validation error can never print them. Every problem becomes a one-line
:class:`~common.errors.ConfigError` that names the variable, never its value.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from common.errors import ConfigError

__all__ = ["SlackSettings", "SLACK_API_URL", "SECRET_VARIABLES", "is_dm_channel"]

#: Slack's own Web API; tests point ``HWBOT_SLACK_API_URL`` at a loopback fake instead.
SLACK_API_URL = "https://slack.com/api/"
#: Variables whose values are never shown, not even in a validation error.
SECRET_VARIABLES = frozenset({"SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN"})


def is_dm_channel(channel_id: str) -> bool:
    """Direct-message conversation ids start with ``D``."""
    return channel_id.startswith("D")


class SlackSettings(BaseSettings):
    """The Slack app's environment. Field names map to the variables in DESIGN.md."""

    model_config = SettingsConfigDict(extra="ignore", case_sensitive=False, populate_by_name=True)

    bot_token: SecretStr | None = Field(default=None, alias="SLACK_BOT_TOKEN")
    signing_secret: SecretStr | None = Field(default=None, alias="SLACK_SIGNING_SECRET")
    app_token: SecretStr | None = Field(default=None, alias="SLACK_APP_TOKEN")
    api_url: str = Field(default=SLACK_API_URL, alias="HWBOT_SLACK_API_URL")
    #: Raw comma list; see :attr:`allowed_channels`. A str (not list) so no JSON decoding is attempted.
    allowed_channels_raw: str = Field(default="", alias="HWBOT_ALLOWED_CHANNELS")

    @field_validator("bot_token", "signing_secret", "app_token", mode="before")
    @classmethod
    def _blank_is_missing(cls, value: Any) -> Any:
        # An exported-but-empty variable is the same mistake as a missing one.
        if isinstance(value, str) and not value.strip():
            return None
        return value.strip() if isinstance(value, str) else value

    @field_validator("api_url", mode="before")
    @classmethod
    def _api_url(cls, value: Any) -> Any:
        if isinstance(value, str) and not value.strip():
            return SLACK_API_URL
        return value

    @property
    def allowed_channels(self) -> frozenset[str]:
        """Channel ids from ``HWBOT_ALLOWED_CHANNELS``; empty means every channel."""
        return frozenset(part.strip() for part in self.allowed_channels_raw.split(",") if part.strip())

    def channel_allowed(self, channel_id: str | None) -> bool:
        """Whether the bot may answer in this conversation.

        Direct messages are always allowed: the allowlist exists to keep the bot out of
        shared channels, and a DM is a conversation the person started with the bot.
        """
        if not channel_id:
            return False
        if is_dm_channel(channel_id) or not self.allowed_channels:
            return True
        return channel_id in self.allowed_channels

    def base_url(self) -> str:
        """The Web API base URL with exactly one trailing slash (slack_sdk appends method names)."""
        return self.api_url.rstrip("/") + "/"

    def secrets(self) -> list[str]:
        """Every secret value, for the log redaction filter."""
        return [s.get_secret_value() for s in (self.bot_token, self.signing_secret, self.app_token) if s is not None]

    def use_socket_mode(self, http: bool) -> bool:
        """DESIGN.md: Socket Mode when ``SLACK_APP_TOKEN`` is set and ``--http`` is not given."""
        return self.app_token is not None and not http

    def check_mode(self, *, http: bool) -> bool:
        """Check the settings for the mode ``--http`` selects; True when that mode is Socket Mode."""
        socket_mode = self.use_socket_mode(http)
        self.check(socket_mode=socket_mode)
        return socket_mode

    def check(self, *, socket_mode: bool) -> None:
        """Raise a one-line :class:`ConfigError` for the first missing or malformed setting."""
        if self.bot_token is None:
            raise ConfigError(
                "SLACK_BOT_TOKEN is not set",
                hint="copy the Bot User OAuth Token (xoxb-...) from your app's OAuth & Permissions page; see docs/slack.md",
            )
        if not self.bot_token.get_secret_value().startswith("xoxb-"):
            raise ConfigError(
                "SLACK_BOT_TOKEN is not a bot token (it must start with xoxb-)",
                hint="use the Bot User OAuth Token, not a user or app-level token; see docs/slack.md",
            )
        if socket_mode:
            assert self.app_token is not None
            if not self.app_token.get_secret_value().startswith("xapp-"):
                raise ConfigError(
                    "SLACK_APP_TOKEN is not an app-level token (it must start with xapp-)",
                    hint="generate one with the connections:write scope under Basic Information; see docs/slack.md",
                )
        elif self.signing_secret is None:
            raise ConfigError(
                "SLACK_SIGNING_SECRET is not set (HTTP mode verifies every request with it)",
                hint="copy it from your app's Basic Information page, or set SLACK_APP_TOKEN for Socket Mode",
            )
        parts = urlsplit(self.api_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ConfigError(
                f"HWBOT_SLACK_API_URL is not an http(s) URL: {self.api_url!r}",
                hint=f"leave it unset to use {SLACK_API_URL}",
            )
        bad = sorted(c for c in self.allowed_channels if not c[:1].isalpha() or not c.isalnum())
        if bad:
            raise ConfigError(
                f"HWBOT_ALLOWED_CHANNELS has entries that are not channel ids: {', '.join(bad)}",
                hint="use ids such as C0123456789, comma separated; empty means all channels",
            )

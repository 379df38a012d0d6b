"""Configuration from the environment: mode selection, allowlist, and one-line errors that never echo secrets."""

from __future__ import annotations

import pytest

from common.errors import ConfigError
from common.settings import load_settings as load_all_settings
from common.slack_settings import SLACK_API_URL, SlackSettings
from tests.slack.conftest import APP_TOKEN, BOT_TOKEN, SIGNING_SECRET

VARS = (
    "SLACK_BOT_TOKEN",
    "SLACK_SIGNING_SECRET",
    "SLACK_APP_TOKEN",
    "HWBOT_SLACK_API_URL",
    "HWBOT_ALLOWED_CHANNELS",
    "HWBOT_FEEDBACK_DB",
)


def load_settings(*, http: bool) -> tuple[SlackSettings, bool]:
    """The Slack section as the CLI builds it, checked for the mode ``--http`` selects."""
    settings = load_all_settings().slack
    return settings, settings.check_mode(http=http)


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in VARS:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def _error(http: bool) -> str:
    with pytest.raises(ConfigError) as err:
        load_settings(http=http)
    line = err.value.one_line()
    assert "\n" not in line
    for secret in (BOT_TOKEN, SIGNING_SECRET, APP_TOKEN):
        assert secret not in line
    return line


def test_missing_bot_token_is_one_line_naming_the_variable(env: pytest.MonkeyPatch) -> None:
    env.setenv("SLACK_SIGNING_SECRET", SIGNING_SECRET)
    assert "SLACK_BOT_TOKEN is not set" in _error(http=True)
    env.setenv("SLACK_BOT_TOKEN", "   ")
    assert "SLACK_BOT_TOKEN is not set" in _error(http=True)


def test_a_user_token_is_not_accepted_as_the_bot_token(env: pytest.MonkeyPatch) -> None:
    env.setenv("SLACK_BOT_TOKEN", "xoxp-1-2-3-usertoken")
    env.setenv("SLACK_SIGNING_SECRET", SIGNING_SECRET)
    line = _error(http=True)
    assert "xoxb-" in line and "xoxp-1-2-3-usertoken" not in line


def test_http_mode_needs_the_signing_secret(env: pytest.MonkeyPatch) -> None:
    env.setenv("SLACK_BOT_TOKEN", BOT_TOKEN)
    assert "SLACK_SIGNING_SECRET" in _error(http=True)


def test_socket_mode_when_the_app_token_is_set_unless_http_is_asked_for(env: pytest.MonkeyPatch) -> None:
    env.setenv("SLACK_BOT_TOKEN", BOT_TOKEN)
    env.setenv("SLACK_APP_TOKEN", APP_TOKEN)
    settings, socket_mode = load_settings(http=False)
    assert socket_mode is True and settings.signing_secret is None  # no signing secret needed
    assert "SLACK_SIGNING_SECRET" in _error(http=True)  # --http wins, and HTTP needs the secret
    env.setenv("SLACK_SIGNING_SECRET", SIGNING_SECRET)
    assert load_settings(http=True)[1] is False


def test_a_malformed_app_token_is_refused(env: pytest.MonkeyPatch) -> None:
    env.setenv("SLACK_BOT_TOKEN", BOT_TOKEN)
    env.setenv("SLACK_APP_TOKEN", "xoxb-not-an-app-token")
    assert "SLACK_APP_TOKEN" in _error(http=False)


def test_defaults_and_allowlist(env: pytest.MonkeyPatch) -> None:
    env.setenv("SLACK_BOT_TOKEN", BOT_TOKEN)
    env.setenv("SLACK_SIGNING_SECRET", SIGNING_SECRET)
    settings, _ = load_settings(http=True)
    assert settings.base_url() == SLACK_API_URL
    assert settings.channel_allowed("CANY00001")  # empty allowlist: every channel
    env.setenv("HWBOT_ALLOWED_CHANNELS", " C0AAA1111, G0BBB2222 ,")
    env.setenv("HWBOT_SLACK_API_URL", "http://127.0.0.1:9/api")
    settings, _ = load_settings(http=True)
    assert settings.allowed_channels == {"C0AAA1111", "G0BBB2222"}
    assert settings.channel_allowed("C0AAA1111") and settings.channel_allowed("G0BBB2222")
    assert not settings.channel_allowed("C0CCC3333")
    assert settings.channel_allowed("D0DDD4444")  # DMs are always allowed
    assert not settings.channel_allowed("")
    assert settings.base_url() == "http://127.0.0.1:9/api/"
    assert BOT_TOKEN not in repr(settings) and SIGNING_SECRET not in str(settings)


@pytest.mark.parametrize(
    "name, value, fragment",
    [
        ("HWBOT_ALLOWED_CHANNELS", "#general", "HWBOT_ALLOWED_CHANNELS"),
        ("HWBOT_SLACK_API_URL", "slack.com/api", "HWBOT_SLACK_API_URL"),
        ("HWBOT_SLACK_API_URL", "ftp://127.0.0.1/api", "HWBOT_SLACK_API_URL"),
    ],
)
def test_bad_values_name_the_variable(env: pytest.MonkeyPatch, name: str, value: str, fragment: str) -> None:
    env.setenv("SLACK_BOT_TOKEN", BOT_TOKEN)
    env.setenv("SLACK_SIGNING_SECRET", SIGNING_SECRET)
    env.setenv(name, value)
    assert fragment in _error(http=True)

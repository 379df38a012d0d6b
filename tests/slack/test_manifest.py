"""The app manifest asks for exactly what the app uses: events, scopes, /hwbot, interactivity, Socket Mode."""

from __future__ import annotations

import tomllib
from pathlib import Path

import yaml

import bot.slack

MANIFEST = Path(bot.slack.__file__).resolve().parent / "manifest.yaml"


def _manifest() -> dict:
    data = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_manifest_declares_events_scopes_command_interactivity_and_socket_mode() -> None:
    m = _manifest()
    assert m["display_information"]["name"] == "hwbot"
    settings = m["settings"]
    assert settings["socket_mode_enabled"] is True
    assert settings["interactivity"]["is_enabled"] is True
    events = set(settings["event_subscriptions"]["bot_events"])
    assert events == {"app_mention", "message.channels", "message.groups", "message.im",
                      "assistant_thread_started", "assistant_thread_context_changed"}
    scopes = set(m["oauth_config"]["scopes"]["bot"])
    # Each event needs its read scope; each Web API call the app makes needs its write scope.
    needed = {
        "app_mention": "app_mentions:read",
        "message.channels": "channels:history",
        "message.groups": "groups:history",
        "message.im": "im:history",
        "assistant_thread_started": "assistant:write",
        "assistant_thread_context_changed": "assistant:write",
    }
    assert {needed[e] for e in events} <= scopes
    assert {"chat:write", "commands", "reactions:write"} <= scopes
    assert len(scopes) == 8, "no scope the app does not use"
    prompts = [p["message"] for p in m["features"]["assistant_view"]["suggested_prompts"]]
    from bot.slack.assistant import SUGGESTED_PROMPTS

    assert prompts == list(SUGGESTED_PROMPTS)
    (command,) = m["features"]["slash_commands"]
    assert command["command"] == "/hwbot"
    assert command["should_escape"] is True  # mentions arrive encoded, so they can be neutralised
    assert m["features"]["app_home"]["messages_tab_enabled"] is True  # DMs and recommendations
    assert m["features"]["bot_user"]["display_name"] == "hwbot"


def test_manifest_is_shipped_as_package_data() -> None:
    # The wheel carries the file only if a package-data pattern of bot.slack matches it,
    # and the docs point people at this exact path.
    repo = Path(__file__).resolve().parents[2]
    package_data = tomllib.loads((repo / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]
    package_dir = repo / "bot" / "slack"
    shipped = {p for pattern in package_data.get("bot.slack", []) for p in package_dir.glob(pattern)}
    assert MANIFEST in shipped and MANIFEST.is_file()
    docs = repo / "docs" / "slack.md"
    assert "bot/slack/manifest.yaml" in docs.read_text(encoding="utf-8")

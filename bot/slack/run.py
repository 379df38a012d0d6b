"""``hwbot slack``: check the configuration, connect, load the engine, serve.

The order is chosen so mistakes surface fast and as one line: settings first (no
network), then ``auth.test`` (is the token good?), and only then the slow part,
loading the model and index. Socket Mode is used when ``SLACK_APP_TOKEN`` is set and
``--http`` is not given; otherwise HTTP mode serves ``/slack/events``.
"""

from __future__ import annotations

import logging
import signal
import threading
from types import FrameType
from typing import TYPE_CHECKING

from slack_bolt import App
from slack_sdk.errors import SlackApiError

from bot.slack.app import build_app, build_web_client, verify_app_token, verify_bot_token
from bot.slack.core import EngineCore
from bot.slack.feedback import FeedbackStore
from bot.slack.logs import configure_logging, framework_logger
from bot.slack.posting import api_error
from bot.slack.server import SlackHttpServer
from bot.slack.services import SlackServices
from bot.slack.settings import SlackSettings, load_settings
from common.errors import ConfigError, HwbotError

if TYPE_CHECKING:  # pragma: no cover
    from slack_bolt.adapter.socket_mode import SocketModeHandler

__all__ = ["run_slack", "start_socket_mode"]

log = logging.getLogger("hwbot.slack")


def _exit_on_sigterm() -> None:
    """``SIGTERM`` (systemd, docker stop) ends the server like Ctrl-C, through the normal cleanup."""

    def handler(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(0)

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, handler)


def _serve_http(app: App, host: str, port: int) -> None:
    try:
        server = SlackHttpServer(app, host=host, port=port)
    except OSError as exc:
        raise HwbotError(f"cannot listen on {host}:{port}: {exc.strerror or exc}", hint="pick another --port") from None
    log.info("hwbot slack listening on %s (HTTP mode)", server.url)
    server.serve_forever()


def start_socket_mode(app: App, settings: SlackSettings) -> "SocketModeHandler":
    """Open the Socket Mode connection (a WebSocket Slack pushes events into) and return its handler."""
    from slack_bolt.adapter.socket_mode import SocketModeHandler

    assert settings.app_token is not None
    handler = SocketModeHandler(app, app_token=settings.app_token.get_secret_value(), logger=framework_logger("socket"))
    try:
        handler.connect()
    except SlackApiError as exc:
        raise ConfigError(
            f"SLACK_APP_TOKEN was rejected by the Slack Web API ({api_error(exc)})",
            hint="generate an app-level token with connections:write and enable Socket Mode; see docs/slack.md",
        ) from None
    return handler


def _serve_socket_mode(app: App, settings: SlackSettings) -> None:
    handler = start_socket_mode(app, settings)
    log.info("hwbot slack connected (Socket Mode)")
    try:
        threading.Event().wait()
    finally:
        handler.close()


def run_slack(*, http: bool, host: str, port: int) -> None:
    """Run the Slack app until interrupted. Every failure is a one-line :class:`HwbotError`."""
    if not 0 <= port <= 65535:
        raise ConfigError(f"--port must be between 0 and 65535, got {port}")
    settings, socket_mode = load_settings(http=http)
    configure_logging(settings.secrets())
    client = build_web_client(settings)
    identity = verify_bot_token(client, settings)
    log.info("authenticated as bot user %s in team %s", identity.get("user_id"), identity.get("team_id"))
    if socket_mode:
        verify_app_token(client, settings)
    feedback = FeedbackStore(settings.feedback_db)
    log.info("loading the index and model…")
    core = EngineCore.open()
    services = SlackServices(settings=settings, core=core, feedback=feedback)
    app = build_app(services, client=client, socket_mode=socket_mode)
    _exit_on_sigterm()
    if socket_mode:
        _serve_socket_mode(app, settings)
    else:
        _serve_http(app, host, port)

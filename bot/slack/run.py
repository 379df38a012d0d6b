"""``hwbot slack``: check the configuration, connect, load the engine, serve.

The order is chosen so mistakes surface fast and as one line: settings first (no
network), then ``auth.test`` (is the token good?), then the state store, and only then
the slow part, loading the model and index (in each worker). Socket Mode is used when
``SLACK_APP_TOKEN`` is set and ``--http`` is not given; otherwise gunicorn serves
``/slack/events`` with ``--workers`` asyncio worker processes (see :mod:`bot.slack.server`).
"""

from __future__ import annotations

import errno
import logging
import os
import signal
import socket
import threading
from types import FrameType
from typing import TYPE_CHECKING, Any

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.slack.app import SlackWorker, build_web_client, build_worker, token_rejected, verify_app_token, verify_bot_token
from bot.slack.feedback import FeedbackStore
from bot.slack.front import EVENTS_PATH, SlackFront
from bot.slack.logs import configure_logging, framework_logger
from bot.slack.runtime import EngineAnswers, SlackRuntime
from bot.slack.server import serve, server_options
from bot.state import open_state_store
from common.errors import ConfigError, HwbotError
from common.settings import HwbotSettings
from common.slack_settings import SlackSettings, load_settings

if TYPE_CHECKING:  # pragma: no cover
    from slack_bolt.adapter.socket_mode import SocketModeHandler

__all__ = ["run_slack", "start_socket_mode", "load_worker"]

log = logging.getLogger("hwbot.slack")

#: The worker of this process (one per gunicorn worker process, or the Socket Mode process).
_worker: SlackWorker | None = None


def load_worker(settings: SlackSettings, hwbot: HwbotSettings, *, client: WebClient | None = None, socket_mode: bool = False) -> SlackWorker:
    """Open the state, load the engine, build the app, and start the heartbeat and recovery."""
    state = open_state_store(hwbot)
    feedback = FeedbackStore(state if hwbot.redis_url else settings.feedback_db)
    engine = EngineAnswers.open(settings=hwbot)
    runtime = SlackRuntime(settings=settings, engine=engine, state=state, feedback=feedback,
                           escalation_channel=hwbot.escalation_channel)
    return build_worker(runtime, client=client, socket_mode=socket_mode).start()


def start_socket_mode(app: App, settings: SlackSettings) -> "SocketModeHandler":
    """Open the Socket Mode connection (a WebSocket Slack pushes events into) and return its handler."""
    from slack_bolt.adapter.socket_mode import SocketModeHandler

    assert settings.app_token is not None
    handler = SocketModeHandler(app, app_token=settings.app_token.get_secret_value(), logger=framework_logger("socket"))
    try:
        handler.connect()
    except SlackApiError as exc:
        raise token_rejected("SLACK_APP_TOKEN", exc) from None
    return handler


def _exit_on_sigterm() -> None:
    """``SIGTERM`` (systemd, docker stop) ends Socket Mode like Ctrl-C, through the normal cleanup."""

    def handler(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(0)

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, handler)


def _serve_socket_mode(settings: SlackSettings, hwbot: HwbotSettings, client: WebClient) -> None:
    log.info("loading the index and model…")
    worker = load_worker(settings, hwbot, client=client, socket_mode=True)
    _exit_on_sigterm()
    handler = start_socket_mode(worker.app, settings)
    log.info("hwbot slack connected (Socket Mode)")
    try:
        threading.Event().wait()
    finally:
        handler.close()
        worker.drain()


def _check_bind(host: str, port: int) -> None:
    """Fail in one line if the address is unusable (gunicorn would retry for seconds, then log a trace)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        with socket.socket(infos[0][0], socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(infos[0][4])
    except OSError as exc:
        reason = "address already in use" if exc.errno == errno.EADDRINUSE else (exc.strerror or str(exc))
        raise HwbotError(f"cannot listen on {host}:{port}: {reason}", hint="pick another --port") from None


def _http_worker_app(settings: SlackSettings, hwbot: HwbotSettings) -> Any:
    """Runs in each gunicorn worker after the fork: its own engine, state connection and app."""
    global _worker
    _worker = load_worker(settings, hwbot)
    secret = settings.signing_secret.get_secret_value() if settings.signing_secret else ""
    log.info("hwbot slack worker %d ready", os.getpid())
    return SlackFront(_worker.app, secret, health=_worker.health)


def _drain_worker() -> None:
    if _worker is not None:
        log.info("hwbot slack worker %d draining", os.getpid())
        _worker.drain()


def _serve_http(settings: SlackSettings, hwbot: HwbotSettings, host: str, port: int, workers: int) -> None:
    _check_bind(host, port)

    def ready(bound: str) -> None:
        log.info("hwbot slack listening on http://%s%s (HTTP mode, %d worker%s)", bound, EVENTS_PATH, workers, "s" * (workers > 1))

    serve(lambda: _http_worker_app(settings, hwbot), server_options(host, port, workers), on_ready=ready, on_exit=_drain_worker)


def run_slack(*, http: bool, host: str, port: int, workers: int = 1) -> None:
    """Run the Slack app until interrupted. Every failure is a one-line :class:`HwbotError`."""
    if not 0 <= port <= 65535:
        raise ConfigError(f"--port must be between 0 and 65535, got {port}")
    if not 1 <= workers <= 64:
        raise ConfigError(f"--workers must be between 1 and 64, got {workers}")
    settings, socket_mode = load_settings(http=http)
    hwbot = HwbotSettings()
    configure_logging(settings.secrets())
    client = build_web_client(settings)
    identity = verify_bot_token(client, settings)
    log.info("authenticated as bot user %s in team %s", identity.get("user_id"), identity.get("team_id"))
    if socket_mode:
        verify_app_token(client, settings)
    open_state_store(hwbot).close()  # a bad HWBOT_STATE_DIR or HWBOT_REDIS_URL fails here, in one line
    if socket_mode:
        _serve_socket_mode(settings, hwbot, client)
    else:
        _serve_http(settings, hwbot, host, port, workers)

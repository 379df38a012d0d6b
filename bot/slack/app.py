"""The Bolt app factory: one WebClient, the listeners, and nothing global.

The WebClient talks to ``HWBOT_SLACK_API_URL`` (tests point it at a loopback fake) and
retries with slack_sdk's own handlers: connection errors, and HTTP 429 after the
``Retry-After`` Slack sends. Tokens go from :class:`SlackSettings` straight into the
client and nowhere else.
"""

from __future__ import annotations

import logging
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field
from urllib.error import URLError

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import ConnectionErrorRetryHandler, RateLimitErrorRetryHandler

from bot.slack.answering import MessageEvents
from bot.slack.assistant import register_assistant
from bot.slack.card import CardActions
from bot.slack.commands import SlashCommand
from bot.slack.durable import Heartbeat, PendingRecord, RecoveryLoop
from bot.slack.interactions import FeedbackButtons, IntakeSubmission
from bot.slack.logs import framework_logger
from bot.slack.posting import api_error
from bot.slack.runtime import SlackRuntime
from bot.state import StateUnavailable
from common.errors import ConfigError, HwbotError
from common.slack_settings import SlackSettings

__all__ = [
    "build_web_client",
    "build_app",
    "build_worker",
    "SlackWorker",
    "verify_bot_token",
    "verify_app_token",
    "token_rejected",
    "RATE_LIMIT_RETRIES",
]

log = logging.getLogger("hwbot.slack")

#: How many times one Web API call is retried after a 429.
RATE_LIMIT_RETRIES = 3
#: Listener threads: mostly waiting (on Slack or on the engine lock), so cheap.
LISTENER_THREADS = 16


def build_web_client(settings: SlackSettings, *, timeout: int = 30) -> WebClient:
    """A WebClient on the configured base URL with rate-limit and connection retries."""
    if settings.bot_token is None:
        raise ConfigError("SLACK_BOT_TOKEN is not set")
    return WebClient(
        token=settings.bot_token.get_secret_value(),
        base_url=settings.base_url(),
        timeout=timeout,
        logger=framework_logger("web"),
        retry_handlers=[
            ConnectionErrorRetryHandler(max_retry_count=2),
            RateLimitErrorRetryHandler(max_retry_count=RATE_LIMIT_RETRIES),
        ],
    )


_TOKEN_HINTS = {
    "SLACK_BOT_TOKEN": "reinstall the app and copy a fresh Bot User OAuth Token; see docs/slack.md",
    "SLACK_APP_TOKEN": "generate an app-level token with connections:write and enable Socket Mode; see docs/slack.md",
}


def token_rejected(variable: str, exc: SlackApiError) -> ConfigError:
    """The one error for a token Slack refused: names the variable and Slack's code, never the token."""
    return ConfigError(f"{variable} was rejected by the Slack Web API ({api_error(exc)})", hint=_TOKEN_HINTS.get(variable))


def verify_bot_token(client: WebClient, settings: SlackSettings) -> dict:
    """``auth.test`` once at start-up, so a bad token is one clear line instead of a failing bot."""
    try:
        response = client.auth_test()
    except SlackApiError as exc:
        raise token_rejected("SLACK_BOT_TOKEN", exc) from None
    except (TimeoutError, URLError, OSError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise HwbotError(
            f"cannot reach the Slack Web API at {settings.base_url()}: {reason}",
            hint="check the network, or HWBOT_SLACK_API_URL if you set it",
        ) from None
    return dict(response.data) if isinstance(response.data, dict) else {}


def verify_app_token(client: WebClient, settings: SlackSettings) -> None:
    """Socket Mode: ask for a connection URL once, so a bad app token fails before the slow start-up."""
    if settings.app_token is None:
        raise ConfigError("SLACK_APP_TOKEN is not set")
    try:
        client.apps_connections_open(app_token=settings.app_token.get_secret_value())
    except SlackApiError as exc:
        raise token_rejected("SLACK_APP_TOKEN", exc) from None
    except (TimeoutError, URLError, OSError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise HwbotError(f"cannot reach the Slack Web API at {settings.base_url()}: {reason}") from None


def _one_line_errors(error: Exception, body: dict) -> None:
    """Bolt's last resort for a listener that raised: one log line, no traceback.

    A state outage is not logged here: the store logs it once per outage.
    """
    if not isinstance(error, StateUnavailable):
        kind = body.get("type") if isinstance(body, dict) else None
        log.error("a listener failed on a %s request: %s", kind, type(error).__name__)


@dataclass
class SlackWorker:
    """One worker's app plus its background duties: the heartbeat, recovery, and a drain on stop."""

    app: App
    runtime: SlackRuntime
    events: MessageEvents
    executor: Executor
    command: SlashCommand | None = None
    heartbeat: Heartbeat | None = field(default=None, init=False)
    recovery: RecoveryLoop | None = field(default=None, init=False)

    def start(self) -> "SlackWorker":
        """Say this worker is alive, and start finishing dead workers' pending work."""
        self.heartbeat = Heartbeat(self.runtime.state, self.runtime.worker_id).start()
        self.recovery = RecoveryLoop(self.events.pending, self.recover).start()
        return self

    def recover(self, key: str, record: PendingRecord, dead_owner: str) -> None:
        """Finish one dead worker's pending record: a ``/hwbot ask``, or a message event."""
        if record.get("kind") == "command" and self.command is not None:
            self.command.recover(key, record, dead_owner)
        else:
            self.events.recover(key, record, dead_owner)

    def health(self) -> str | None:
        """None when this worker can answer with shared state, else a one-line reason (``/healthz``)."""
        check = getattr(self.runtime.state, "health", None)
        return check() if callable(check) else None

    def drain(self) -> None:
        """Finish in-flight work (SIGTERM), then stop the heartbeat: nothing is left pending."""
        if self.recovery is not None:
            self.recovery.stop()
        self.executor.shutdown(wait=True)
        if self.heartbeat is not None:
            self.heartbeat.stop()


def build_worker(
    runtime: SlackRuntime,
    *,
    client: WebClient | None = None,
    socket_mode: bool = False,
    executor: Executor | None = None,
) -> SlackWorker:
    """The Bolt :class:`App` with every hwbot listener registered, and its background duties.

    ``token_verification_enabled=False`` because :func:`verify_bot_token` already ran
    (in ``hwbot slack``); Bolt then calls ``auth.test`` once on the first request to
    learn the bot's own user id, which it needs to ignore its own messages.
    ``executor`` runs listeners and lazy listeners. The default has more threads than
    Bolt's 5: a slash command's ack function runs on this pool too, and must not queue
    behind answers that are waiting for the (serialized) engine.
    """
    settings = runtime.settings
    web = client or build_web_client(settings)
    secret = settings.signing_secret.get_secret_value() if settings.signing_secret else ""
    pool = executor or ThreadPoolExecutor(max_workers=LISTENER_THREADS, thread_name_prefix="hwbot-slack")
    app = App(
        # Bolt names loggers after the app: not "hwbot", or it would pin our own loggers at WARNING.
        name="hwbot-bolt",
        client=web,
        signing_secret=secret,
        logger=framework_logger("bolt"),
        token_verification_enabled=False,
        request_verification_enabled=not socket_mode,
        process_before_response=False,
        listener_executor=pool,
    )
    events = MessageEvents(runtime)
    events.register(app)
    command = SlashCommand(runtime)
    command.register(app)
    FeedbackButtons(runtime).register(app)
    IntakeSubmission(runtime).register(app)
    CardActions(runtime).register(app)
    register_assistant(app, runtime, events)
    app.error(_one_line_errors)
    return SlackWorker(app, runtime, events, pool, command)


def build_app(
    runtime: SlackRuntime,
    *,
    client: WebClient | None = None,
    socket_mode: bool = False,
    executor: Executor | None = None,
) -> App:
    """Just the Bolt app of :func:`build_worker` (no heartbeat, no recovery loop)."""
    return build_worker(runtime, client=client, socket_mode=socket_mode, executor=executor).app

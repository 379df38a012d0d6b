"""The Bolt app factory: one WebClient, the listeners, and nothing global.

The WebClient talks to ``HWBOT_SLACK_API_URL`` (tests point it at a loopback fake) and
retries with slack_sdk's own handlers: connection errors, and HTTP 429 after the
``Retry-After`` Slack sends. Tokens go from :class:`SlackSettings` straight into the
client and nowhere else.
"""

from __future__ import annotations

from concurrent.futures import Executor, ThreadPoolExecutor
from urllib.error import URLError

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import ConnectionErrorRetryHandler, RateLimitErrorRetryHandler

from bot.slack.answering import MessageEvents
from bot.slack.commands import SlashCommand
from bot.slack.interactions import FeedbackButtons, IntakeSubmission
from bot.slack.logs import framework_logger
from bot.slack.posting import api_error
from bot.slack.services import SlackServices
from bot.slack.settings import SlackSettings
from common.errors import ConfigError, HwbotError

__all__ = ["build_web_client", "build_app", "verify_bot_token", "verify_app_token", "RATE_LIMIT_RETRIES"]

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


def verify_bot_token(client: WebClient, settings: SlackSettings) -> dict:
    """``auth.test`` once at start-up, so a bad token is one clear line instead of a failing bot."""
    try:
        response = client.auth_test()
    except SlackApiError as exc:
        raise ConfigError(
            f"SLACK_BOT_TOKEN was rejected by the Slack Web API ({api_error(exc)})",
            hint="reinstall the app and copy a fresh Bot User OAuth Token; see docs/slack.md",
        ) from None
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
        raise ConfigError(
            f"SLACK_APP_TOKEN was rejected by the Slack Web API ({api_error(exc)})",
            hint="generate an app-level token with connections:write and enable Socket Mode; see docs/slack.md",
        ) from None
    except (TimeoutError, URLError, OSError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise HwbotError(f"cannot reach the Slack Web API at {settings.base_url()}: {reason}") from None


def build_app(
    services: SlackServices,
    *,
    client: WebClient | None = None,
    socket_mode: bool = False,
    executor: Executor | None = None,
) -> App:
    """The Bolt :class:`App` with every hwbot listener registered.

    ``token_verification_enabled=False`` because :func:`verify_bot_token` already ran
    (in ``hwbot slack``); Bolt then calls ``auth.test`` once on the first request to
    learn the bot's own user id, which it needs to ignore its own messages.
    ``executor`` runs listeners and lazy listeners. The default has more threads than
    Bolt's 5: a slash command's ack function runs on this pool too, and must not queue
    behind answers that are waiting for the (serialized) engine.
    """
    settings = services.settings
    web = client or build_web_client(settings)
    secret = settings.signing_secret.get_secret_value() if settings.signing_secret else ""
    app = App(
        # Bolt names loggers after the app: not "hwbot", or it would pin our own loggers at WARNING.
        name="hwbot-bolt",
        client=web,
        signing_secret=secret,
        logger=framework_logger("bolt"),
        token_verification_enabled=False,
        request_verification_enabled=not socket_mode,
        process_before_response=False,
        listener_executor=executor or ThreadPoolExecutor(max_workers=LISTENER_THREADS, thread_name_prefix="hwbot-slack"),
    )
    MessageEvents(services).register(app)
    SlashCommand(services).register(app)
    FeedbackButtons(services).register(app)
    IntakeSubmission(services).register(app)
    return app

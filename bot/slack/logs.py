"""Logging for the Slack app: what happened, never who said what, never a secret.

Two rules, enforced in two layers:

1. Our own log calls carry ids, sizes and timings only: never message text (at any
   level) and never a token. The framework loggers (slack_bolt, slack_sdk, socket mode)
   are pinned at WARNING, because at INFO/DEBUG they print request bodies, which hold
   the users' messages.
2. As a safety net, :class:`RedactingFilter` sits on the output handler and masks
   anything shaped like a Slack token, plus the exact secrets we were configured with,
   in messages, arguments and tracebacks.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Iterable

__all__ = [
    "RedactingFilter",
    "redact",
    "configure_logging",
    "framework_logger",
    "LOGGER_NAME",
]

LOGGER_NAME = "hwbot.slack"
#: Slack token shapes: bot/user/config/refresh tokens (xox?-...) and app-level tokens (xapp-...).
_TOKEN_RE = re.compile(r"\b(?:xox[a-z]|xapp)-[A-Za-z0-9-]+")
_MASK = "[redacted]"


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """Mask token-shaped strings and the given secret values."""
    out = _TOKEN_RE.sub(_MASK, text)
    for secret in secrets:
        if secret and len(secret) >= 6:  # tiny values would mask ordinary words
            out = out.replace(secret, _MASK)
    return out


class RedactingFilter(logging.Filter):
    """A handler filter: formats the record once, redacts it, and freezes the result."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self._secrets = [s for s in secrets if s]

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string must not lose the record
            message = str(record.msg)
        record.msg = redact(message, self._secrets)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text, self._secrets)
        if record.stack_info:
            record.stack_info = redact(record.stack_info, self._secrets)
        return True


def framework_logger(name: str) -> logging.Logger:
    """A logger handed to slack_bolt / slack_sdk: WARNING and above only (see module doc)."""
    logger = logging.getLogger(f"{LOGGER_NAME}.framework.{name}")
    logger.setLevel(logging.WARNING)
    return logger


def configure_logging(secrets: Iterable[str], level: int = logging.INFO) -> logging.Handler:
    """Send logs to stderr through the redaction filter; returns the handler it installed.

    Called by ``hwbot slack`` only (a library must not configure the root logger).
    """
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactingFilter(secrets))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(level)
    # Pinned even if someone lowers the root level: these print request bodies below WARNING.
    for name in ("slack_bolt", "slack_sdk", "urllib3"):
        logging.getLogger(name).setLevel(logging.WARNING)
    return handler

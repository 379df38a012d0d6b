"""Slack's text format, in both directions.

Incoming: Slack encodes mentions, channels and links as ``<...>`` and escapes ``&``,
``<`` and ``>``. :func:`to_plain` turns that back into the words a person typed, so the
engine sees "what is a TPU?" and not ``<@U0BOT> what is a TPU?``. Links become their
text only: no URL from a message is ever fetched.

Outgoing: everything we send that did not come from our own templates goes through
:func:`escape`. Slack's broadcast and group pings (``<!channel>``, ``<!here>``,
``<!everyone>``, ``<!subteam^...>``) and user pings all need a literal ``<``, so once
``&``, ``<`` and ``>`` are escaped no echoed text can notify anyone.
"""

from __future__ import annotations

import re

__all__ = ["escape", "to_plain", "mentions_user"]

_ANGLE = re.compile(r"<([^<>]*)>")
_SPECIAL = {"here": "@here", "channel": "@channel", "everyone": "@everyone"}


def escape(text: str) -> str:
    """Escape the three characters Slack's markup is built from (``&`` first)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _unescape(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def mentions_user(text: str, user_id: str | None) -> bool:
    """Whether Slack-encoded ``text`` mentions ``user_id`` (e.g. the bot itself)."""
    if not user_id:
        return False
    return f"<@{user_id}>" in text or f"<@{user_id}|" in text


def _readable(inner: str, bot_user_id: str | None) -> str:
    target, _, label = inner.partition("|")
    if target.startswith("@"):
        if bot_user_id and target[1:] == bot_user_id:
            return " "
        return f"@{label or target[1:]}"
    if target.startswith("#"):
        return f"#{label or target[1:]}"
    if target.startswith("!"):
        name = target[1:]
        if name in _SPECIAL:
            return _SPECIAL[name]
        if name.startswith("subteam^"):
            return label or "@group"
        return label or name
    # A link: keep the words, never the need to visit it.
    return label or target


def to_plain(text: str, bot_user_id: str | None = None) -> str:
    """Slack-encoded message text to the plain question a person typed.

    The bot's own mention is removed; other mentions, channels and links become
    readable words; entities are unescaped; whitespace is collapsed.
    """
    decoded = _ANGLE.sub(lambda m: _readable(m.group(1), bot_user_id), text or "")
    return " ".join(_unescape(decoded).split())

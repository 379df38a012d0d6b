"""Sending to Slack: one place that posts, reacts and reports failures without leaking text.

Every post disables unfurling (no URL in an answer is ever fetched, by us or on our
behalf) and never sets ``link_names`` (so plain "@channel" text stays plain). Failures
are logged with Slack's error code only.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.slack.blocks import SlackMessage

__all__ = ["post", "post_ephemeral", "add_reaction", "remove_reaction", "api_error"]

log = logging.getLogger("hwbot.slack.posting")

WORKING_REACTION = "eyes"


def api_error(exc: SlackApiError) -> str:
    """Slack's error code (``not_in_channel``, ``ratelimited``...), never the request."""
    try:
        return str(exc.response.get("error") or exc.response.status_code)
    except Exception:  # a malformed response must not turn into a crash in a handler
        return "unknown_error"


def post(client: WebClient, channel: str, message: SlackMessage, *, thread_ts: str | None = None) -> dict[str, Any]:
    """``chat.postMessage``; returns Slack's response data (``ts``, ``channel``)."""
    response = client.chat_postMessage(
        channel=channel,
        thread_ts=thread_ts,
        text=message.text,
        blocks=message.blocks,
        unfurl_links=False,
        unfurl_media=False,
    )
    return dict(response.data) if isinstance(response.data, dict) else {}


def post_ephemeral(client: WebClient, channel: str, user: str, message: SlackMessage) -> None:
    client.chat_postEphemeral(channel=channel, user=user, text=message.text, blocks=message.blocks)


def add_reaction(client: WebClient, channel: str, ts: str) -> bool:
    """The working indicator. Best effort: a missing scope must not stop the answer."""
    try:
        client.reactions_add(channel=channel, timestamp=ts, name=WORKING_REACTION)
        return True
    except SlackApiError as exc:
        log.warning("could not add the working reaction in %s: %s", channel, api_error(exc))
        return False


def remove_reaction(client: WebClient, channel: str, ts: str) -> None:
    try:
        client.reactions_remove(channel=channel, timestamp=ts, name=WORKING_REACTION)
    except SlackApiError as exc:
        log.warning("could not remove the working reaction in %s: %s", channel, api_error(exc))

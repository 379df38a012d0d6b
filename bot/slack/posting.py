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
from slack_sdk.webhook import WebhookClient

from bot.slack.blocks import SlackMessage

__all__ = ["post", "add_reaction", "remove_reaction", "api_error", "answer_metadata", "find_earlier_answer", "ANSWER_EVENT_TYPE", "respond_via"]

log = logging.getLogger("hwbot.slack.posting")

WORKING_REACTION = "eyes"
#: Message metadata on every answer: names the event it answers, so a restarted worker can find it.
ANSWER_EVENT_TYPE = "hwbot_answer"


def api_error(exc: SlackApiError) -> str:
    """Slack's error code (``not_in_channel``, ``ratelimited``...), never the request."""
    try:
        return str(exc.response.get("error") or exc.response.status_code)
    except Exception:  # a malformed response must not turn into a crash in a handler
        return "unknown_error"


def post(
    client: WebClient,
    channel: str,
    message: SlackMessage,
    *,
    thread_ts: str | None = None,
    metadata: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """``chat.postMessage``; returns Slack's response data (``ts``, ``channel``)."""
    response = client.chat_postMessage(
        channel=channel,
        thread_ts=thread_ts,
        text=message.text,
        blocks=message.blocks,
        unfurl_links=False,
        unfurl_media=False,
        metadata=metadata,
    )
    return dict(response.data) if isinstance(response.data, dict) else {}


def answer_metadata(event_id: str | None, channel: str, ts: str) -> dict[str, Any]:
    """The metadata an answer carries: the event id and the message it answers."""
    return {"event_type": ANSWER_EVENT_TYPE, "event_payload": {"event_id": event_id or "", "message": f"{channel}:{ts}"}}


def _answers(message: dict[str, Any], event_id: str | None, key: str) -> bool:
    meta = message.get("metadata")
    if not isinstance(meta, dict) or meta.get("event_type") != ANSWER_EVENT_TYPE:
        return False
    payload = meta.get("event_payload")
    if not isinstance(payload, dict):
        return False
    return (bool(event_id) and payload.get("event_id") == event_id) or payload.get("message") == key


def find_earlier_answer(client: WebClient, channel: str, ts: str, *, thread_ts: str | None, event_id: str | None) -> bool:
    """Whether an answer to this event is already in the conversation (a crash after the post).

    In a thread it is among ``conversations.replies``; in a DM without a thread it is in
    ``conversations.history`` after the question. Both are read with their metadata.
    """
    key = f"{channel}:{ts}"
    if thread_ts:
        response = client.conversations_replies(channel=channel, ts=thread_ts, include_all_metadata=True, limit=200)
    else:
        response = client.conversations_history(channel=channel, oldest=ts, include_all_metadata=True, limit=200)
    messages = response.get("messages") or []
    return any(isinstance(m, dict) and _answers(m, event_id, key) for m in messages)


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


def respond_via(response_url: Any, **payload: Any) -> bool:
    """Send to a ``response_url`` if the payload has a usable one; False (and nothing sent) otherwise."""
    if not isinstance(response_url, str) or not response_url.startswith(("https://", "http://")):
        return False
    try:
        WebhookClient(response_url, timeout=10).send_dict(payload)
        return True
    except Exception as exc:  # the person only loses a courtesy message
        log.warning("could not use the response_url: %s", type(exc).__name__)
        return False

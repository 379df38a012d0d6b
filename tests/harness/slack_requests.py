"""Signed requests shaped like Slack's: Events API JSON, slash-command forms, ``payload=`` forms.

Signatures are made with slack_sdk's :class:`SignatureVerifier` (v0 HMAC-SHA256 over
``v0:{timestamp}:{body}``), exactly what Slack sends in ``X-Slack-Signature``.
"""

from __future__ import annotations

import itertools
import json
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from slack_sdk.signature import SignatureVerifier

from tests.harness.fake_slack import BOT_USER_ID, TEAM_ID

_ids = itertools.count(1)


def next_ts() -> str:
    return f"1690000000.{next(_ids):06d}"


@dataclass
class Reply:
    status: int
    body: str
    sent_at: float  # time.time() just before the request was sent
    received_at: float  # time.time() when the response was complete

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


class SlackSender:
    """Posts signed requests to the app's ``/slack/events``."""

    def __init__(self, url: str, signing_secret: str) -> None:
        self.url = url
        self.verifier = SignatureVerifier(signing_secret)

    def raw(
        self,
        body: str,
        *,
        content_type: str,
        timestamp: int | None = None,
        signature: str | None = None,
        extra_headers: dict[str, str] | None = None,
        sign: bool = True,
    ) -> Reply:
        ts = str(int(time.time()) if timestamp is None else timestamp)
        headers = {"Content-Type": content_type}
        if sign:
            headers["X-Slack-Request-Timestamp"] = ts
            headers["X-Slack-Signature"] = signature or self.verifier.generate_signature(timestamp=ts, body=body)
        headers.update(extra_headers or {})
        request = urllib.request.Request(self.url, data=body.encode("utf-8"), headers=headers, method="POST")
        sent_at = time.time()
        try:
            with urllib.request.urlopen(request, timeout=30) as resp:
                return Reply(resp.status, resp.read().decode("utf-8"), sent_at, time.time())
        except urllib.error.HTTPError as err:
            return Reply(err.code, err.read().decode("utf-8"), sent_at, time.time())

    # -- Events API -----------------------------------------------------------------

    def event(self, event: dict[str, Any], *, event_id: str | None = None, retry_num: int | None = None, **kw: Any) -> Reply:
        envelope = event_envelope(event, event_id=event_id)
        extra = dict(kw.pop("extra_headers", {}) or {})
        if retry_num is not None:
            extra["X-Slack-Retry-Num"] = str(retry_num)
            extra["X-Slack-Retry-Reason"] = "http_timeout"
        return self.raw(json.dumps(envelope), content_type="application/json", extra_headers=extra, **kw)

    def event_envelope_json(self, envelope: dict[str, Any], **kw: Any) -> Reply:
        return self.raw(json.dumps(envelope), content_type="application/json", **kw)

    # -- slash commands and interactivity -------------------------------------------

    def command(self, text: str, *, channel: str = "CGENERAL1", user: str = "UASKER01", response_url: str = "", **kw: Any) -> Reply:
        form = {
            "token": "legacy-verification-token",
            "team_id": TEAM_ID,
            "team_domain": "hwbot-test",
            "channel_id": channel,
            "channel_name": "general",
            "user_id": user,
            "user_name": "asker",
            "command": "/hwbot",
            "text": text,
            "api_app_id": "AHWBOT01",
            "is_enterprise_install": "false",
            "response_url": response_url,
            "trigger_id": f"{next(_ids)}.{next(_ids)}.trigger",
        }
        return self.raw(urlencode(form), content_type="application/x-www-form-urlencoded", **kw)

    def interactive(self, payload: dict[str, Any], **kw: Any) -> Reply:
        body = urlencode({"payload": json.dumps(payload)})
        return self.raw(body, content_type="application/x-www-form-urlencoded", **kw)


def event_envelope(event: dict[str, Any], *, event_id: str | None = None) -> dict[str, Any]:
    return {
        "token": "legacy-verification-token",
        "team_id": TEAM_ID,
        "api_app_id": "AHWBOT01",
        "event": event,
        "type": "event_callback",
        "event_id": event_id or f"Ev{next(_ids):08d}",
        "event_time": int(time.time()),
        "authorizations": [{"team_id": TEAM_ID, "user_id": BOT_USER_ID, "is_bot": True}],
    }


def mention(text: str, *, channel: str = "CGENERAL1", user: str = "UASKER01", ts: str | None = None, thread_ts: str | None = None) -> dict[str, Any]:
    """An ``app_mention`` event; ``text`` is Slack-encoded and gets the bot's mention prepended."""
    event: dict[str, Any] = {
        "type": "app_mention",
        "user": user,
        "text": f"<@{BOT_USER_ID}> {text}",
        "ts": ts or next_ts(),
        "channel": channel,
        "event_ts": ts or next_ts(),
    }
    if thread_ts:
        event["thread_ts"] = thread_ts
    return event


def message(
    text: str,
    *,
    channel: str,
    channel_type: str = "channel",
    user: str | None = "UASKER01",
    ts: str | None = None,
    thread_ts: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A ``message`` event (a DM with ``channel_type='im'``)."""
    stamp = ts or next_ts()
    event: dict[str, Any] = {
        "type": "message",
        "text": text,
        "ts": stamp,
        "channel": channel,
        "channel_type": channel_type,
        "event_ts": stamp,
    }
    if user is not None:
        event["user"] = user
    if thread_ts:
        event["thread_ts"] = thread_ts
    event.update(extra)
    return event


def block_action(
    *,
    action_id: str,
    value: str,
    channel: str,
    message: dict[str, Any],
    user: str = "UASKER01",
    response_url: str = "",
    ephemeral: bool = False,
) -> dict[str, Any]:
    """A ``block_actions`` payload for a button click on ``message``."""
    return {
        "type": "block_actions",
        "user": {"id": user, "username": "asker", "name": "asker", "team_id": TEAM_ID},
        "api_app_id": "AHWBOT01",
        "token": "legacy-verification-token",
        "container": {"type": "message", "message_ts": message["ts"], "channel_id": channel, "is_ephemeral": ephemeral},
        "trigger_id": f"{next(_ids)}.{next(_ids)}.trigger",
        "team": {"id": TEAM_ID, "domain": "hwbot-test"},
        "channel": {"id": channel, "name": "general"},
        "message": message,
        "response_url": response_url,
        "actions": [
            {
                "action_id": action_id,
                "block_id": "hwbot_feedback",
                "text": {"type": "plain_text", "text": "Helpful"},
                "value": value,
                "type": "button",
                "action_ts": str(time.time()),
            }
        ],
    }


def view_submission(values: dict[str, dict[str, Any]], *, user: str = "UASKER01", channel: str = "CGENERAL1") -> dict[str, Any]:
    """A ``view_submission`` payload for the intake modal with ``state.values``."""
    return {
        "type": "view_submission",
        "team": {"id": TEAM_ID, "domain": "hwbot-test"},
        "user": {"id": user, "username": "asker", "name": "asker", "team_id": TEAM_ID},
        "api_app_id": "AHWBOT01",
        "token": "legacy-verification-token",
        "trigger_id": f"{next(_ids)}.{next(_ids)}.trigger",
        "view": {
            "id": "VHWBOT01",
            "team_id": TEAM_ID,
            "type": "modal",
            "callback_id": "hwbot_intake",
            "private_metadata": json.dumps({"channel": channel}),
            "state": {"values": values},
            "hash": "1690000000.abcdef",
            "title": {"type": "plain_text", "text": "GPU or TPU?"},
            "root_view_id": "VHWBOT01",
            "app_id": "AHWBOT01",
            "bot_id": "BHWBOT01",
        },
        "response_urls": [],
        "is_enterprise_install": False,
    }


def select_state(answers: dict[str, str]) -> dict[str, dict[str, Any]]:
    """``state.values`` as Slack sends them for static_select inputs (block ``q_<field>``)."""
    return {
        f"q_{field}": {field: {"type": "static_select", "selected_option": {"value": value, "text": {"type": "plain_text", "text": value}}}}
        for field, value in answers.items()
    }

"""Slack's assistant surface (the split-pane AI app view), through Bolt's :class:`Assistant`.

It sits beside mentions, DMs and ``/hwbot`` and reuses them: a message in an assistant
thread is a DM in a thread, recorded as pending before the ack and answered through
the same :meth:`~bot.slack.answering.MessageEvents.process` (claims, durable work, the
same engine and feedback buttons). The assistant adds only the pane's manners:

- on ``assistant_thread_started``: suggested prompts;
- while working: ``assistant.threads.setStatus`` (Slack clears it when the answer lands);
- a title for the thread from the first question (``assistant.threads.setTitle``);
- "Start a recommendation" answers with a button that opens the intake modal (a modal
  needs a click's ``trigger_id``; a typed message has none).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from slack_bolt import Ack, App, BoltContext
from slack_bolt.middleware.assistant import Assistant
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.models.blocks import ActionsBlock, ButtonElement, PlainTextObject

from bot.slack.blocks import SlackMessage, echo_text, section
from bot.slack.modal import intake_view
from bot.slack.mrkdwn import to_plain
from bot.slack.posting import api_error, post
from bot.slack.runtime import SlackRuntime

if TYPE_CHECKING:  # pragma: no cover
    from bot.slack.answering import MessageEvents

__all__ = ["register_assistant", "SUGGESTED_PROMPTS", "ACTION_OPEN_INTAKE", "START_RECOMMENDATION"]

log = logging.getLogger("hwbot.slack.assistant")

START_RECOMMENDATION = "Start a recommendation"
SUGGESTED_PROMPTS = ("GPU or TPU for our team?", START_RECOMMENDATION, "Why would a TPU sit idle?")
ACTION_OPEN_INTAKE = "hwbot_open_intake"
WORKING_STATUS = "is looking through the notes…"
_TITLE_LIMIT = 60


def open_intake_message() -> SlackMessage:
    button = ActionsBlock(
        block_id="hwbot_open_intake",
        elements=[ButtonElement(text=PlainTextObject(text="Open the form"), action_id=ACTION_OPEN_INTAKE, value="intake", style="primary")],
    )
    intro = section("A few questions about your project, then a cited GPU-or-TPU recommendation.")
    return SlackMessage(text="Open the recommendation form", blocks=[intro.to_dict(), button.to_dict()])


def thread_title(text: str, bot_user_id: str | None = None) -> str:
    """A title from the first question: plain words, no ``<!here>``, ``<!channel>`` or ``<@U…>`` markup.

    Slack-encoded mentions become their readable names without the ``@``, so a title can
    neither ping anyone nor look like it did.
    """
    plain = to_plain(text, bot_user_id)
    for marker in ("@here", "@channel", "@everyone"):
        plain = plain.replace(marker, marker[1:])
    return echo_text(" ".join(plain.replace("<", "").replace(">", "").split()), _TITLE_LIMIT) or "Question"


def register_assistant(app: App, runtime: SlackRuntime, events: "MessageEvents | None" = None) -> None:
    """Add the assistant middleware and the "Open the form" button to ``app``."""
    assistant = Assistant(logger=logging.getLogger("hwbot.slack.framework.assistant"))

    @assistant.thread_started
    def started(say: Any, set_suggested_prompts: Any) -> None:
        try:
            set_suggested_prompts(prompts=list(SUGGESTED_PROMPTS), title="Ask about GPUs and TPUs")
        except SlackApiError as exc:
            log.warning("could not set suggested prompts: %s", api_error(exc))

    @assistant.user_message
    def user_message(context: BoltContext, client: WebClient, set_status: Any, set_title: Any, payload: dict) -> None:
        from bot.slack.answering import Job

        job = context.get("hwbot_job")
        if not isinstance(job, Job) or events is None:
            return
        text = " ".join(str(payload.get("text") or "").split())
        try:
            if payload.get("thread_ts") and text:
                set_title(thread_title(text, context.bot_user_id))
            set_status(WORKING_STATUS)
        except SlackApiError as exc:
            log.warning("could not set the assistant status: %s", api_error(exc))
        if text.lower().rstrip(".!") == START_RECOMMENDATION.lower():
            claim = runtime.dedupe.claim(job.keys)
            if claim is not None:
                post(client, job.channel, open_intake_message(), thread_ts=job.reply_thread)
                claim.done()
            events.pending.finish(job.event_id)
            return
        events.process(job, client)

    app.use(assistant)

    @app.action(ACTION_OPEN_INTAKE)
    def open_intake(ack: Ack, body: dict, client: WebClient) -> None:
        ack()
        trigger = body.get("trigger_id")
        if not isinstance(trigger, str) or not trigger:
            return
        channel = (body.get("channel") or {}).get("id") if isinstance(body.get("channel"), dict) else None
        try:
            client.views_open(trigger_id=trigger, view=intake_view(channel, runtime.questionnaire))
        except SlackApiError as exc:
            log.warning("views.open failed: %s", api_error(exc))

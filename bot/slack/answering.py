"""Questions from Slack: mentions in channels, direct messages, and follow-ups in our threads.

Bolt acknowledges Events API requests before a listener runs (the listener runs on a
worker thread), so the 3-second budget is spent on the HTTP 200 only, never on the
answer. Each delivery is claimed in :class:`~bot.slack.dedupe.DedupeStore` first, so a
Slack retry or the twin ``message`` event of a mention cannot produce a second answer.
While the engine works, the question carries an :eyes: reaction.

What is ignored, deliberately: the bot's own messages and other bots' (``bot_id``),
edits and deletes (``message_changed`` / ``message_deleted`` and every other subtype
except a thread reply also sent to the channel), and channel messages outside threads
the bot answered.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from slack_bolt import App, BoltContext, BoltRequest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.slack.blocks import answer_message, template_message, text_message
from bot.slack.dedupe import event_keys
from bot.slack.mrkdwn import mentions_user, to_plain
from bot.slack.posting import add_reaction, api_error, post, remove_reaction
from bot.slack.services import SlackServices
from bot.slack.settings import is_dm_channel
from common.errors import HwbotError

__all__ = ["MessageEvents", "answer_to_message", "EMPTY_QUESTION_HINT"]

log = logging.getLogger("hwbot.slack.answering")

#: Subtypes that are still a person asking something (a thread reply also sent to the channel).
_PERSON_SUBTYPES = frozenset({None, "thread_broadcast", "file_share"})
EMPTY_QUESTION_HINT = (
    "Ask me about choosing AI hardware, for example: _When is a TPU a better choice than a GPU?_ "
    "For a recommendation for your project, run `/hwbot recommend`."
)


def answer_to_message(services: SlackServices, question: str, *, echo_question: bool) -> tuple[Any, Any]:
    """Ask the core and render the answer with feedback buttons: ``(Answer, SlackMessage)``."""
    answer = services.core.ask(question)
    answer_id = services.feedback.remember(answer)
    return answer, answer_message(answer, answer_id, echo_question=echo_question)


class MessageEvents:
    """Listeners for ``app_mention`` and ``message`` events."""

    def __init__(self, services: SlackServices) -> None:
        self.services = services

    def register(self, app: App) -> None:
        app.event("app_mention")(self.on_app_mention)
        app.event("message")(self.on_message)

    # -- listeners ------------------------------------------------------------------

    def on_app_mention(self, body: dict, event: dict, context: BoltContext, client: WebClient, request: BoltRequest) -> None:
        if self._not_a_person(event, context):
            return
        self._handle("mention", body, event, context, client, request)

    def on_message(self, body: dict, event: dict, context: BoltContext, client: WebClient, request: BoltRequest) -> None:
        if self._not_a_person(event, context):
            return
        channel = str(event.get("channel") or "")
        if event.get("channel_type") == "im" or is_dm_channel(channel):
            self._handle("dm", body, event, context, client, request)
            return
        thread_ts = event.get("thread_ts")
        if not self.services.threads.knows(channel, thread_ts):
            return  # ordinary channel chatter: not for us
        if mentions_user(str(event.get("text") or ""), context.bot_user_id):
            return  # the app_mention event for the same message answers it
        self._handle("follow-up", body, event, context, client, request)

    # -- work -----------------------------------------------------------------------

    @staticmethod
    def _not_a_person(event: dict, context: BoltContext) -> bool:
        if event.get("subtype") not in _PERSON_SUBTYPES:
            return True  # edits, deletes, joins, bot_message ...
        if event.get("bot_id") or event.get("bot_profile"):
            return True
        user = event.get("user")
        return not user or user == context.bot_user_id

    def _handle(
        self, kind: str, body: dict, event: dict, context: BoltContext, client: WebClient, request: BoltRequest
    ) -> None:
        services = self.services
        channel = str(event.get("channel") or "")
        ts = str(event.get("ts") or "")
        if not channel or not ts:
            return
        if not services.settings.channel_allowed(channel):
            log.info("ignored a %s in %s: channel not in HWBOT_ALLOWED_CHANNELS", kind, channel)
            return
        claim = services.dedupe.claim(event_keys(body.get("event_id"), channel, ts))
        if claim is None:
            retry = (request.headers.get("x-slack-retry-num") or ["-"])[0]
            log.info("ignored a duplicate %s delivery %s (channel %s ts %s, retry %s)", kind, body.get("event_id"), channel, ts, retry)
            return
        if kind == "dm":
            reply_thread = event.get("thread_ts")
        else:
            reply_thread = event.get("thread_ts") or ts
        question = to_plain(str(event.get("text") or ""), context.bot_user_id)
        if not question:
            try:
                post(client, channel, template_message(EMPTY_QUESTION_HINT, "Ask me about choosing AI hardware."), thread_ts=reply_thread)
                claim.done()
            except SlackApiError as exc:
                log.warning("could not post a hint in %s: %s", channel, api_error(exc))
                claim.release()
            return

        started = time.perf_counter()
        reacted = add_reaction(client, channel, ts)
        try:
            try:
                answer, message = answer_to_message(services, question, echo_question=False)
            except HwbotError as exc:
                log.warning("could not answer a %s in %s: %s", kind, channel, type(exc).__name__)
                answer, message = None, text_message(f"Sorry, I could not answer that: {exc.one_line()}")
            post(client, channel, message, thread_ts=reply_thread)
            if reply_thread:
                services.threads.remember(channel, reply_thread)
            claim.done()
            if answer is not None:
                log.info(
                    "answered a %s in %s (ts %s): %d chars, %d citations, declined=%s, %.2fs",
                    kind,
                    channel,
                    ts,
                    len(answer.answer),
                    len(answer.citations),
                    answer.declined,
                    time.perf_counter() - started,
                )
        except SlackApiError as exc:
            # Not answered: free the claim so Slack's own retry of this event can try again.
            claim.release()
            log.warning("could not post the answer to a %s in %s: %s", kind, channel, api_error(exc))
        except Exception:
            log.exception("answering a %s in %s failed", kind, channel)
            try:
                post(client, channel, text_message("Sorry, something went wrong while answering."), thread_ts=reply_thread)
                claim.done()
            except SlackApiError:
                claim.release()
        finally:
            if reacted:
                remove_reaction(client, channel, ts)

"""``/hwbot ask <question>``, ``/hwbot recommend`` and ``/hwbot help``.

Slash commands must be acknowledged within 3 seconds, and a modal's ``trigger_id``
expires in 3 seconds too. So the ack function does only cheap things: it answers
``help`` inline, and for ``recommend`` it acks and calls ``views.open`` at once (the
modal is built from data already in memory). The slow part, asking the engine, runs
in a Bolt *lazy* listener after the ack has been sent.

An answer is posted to the channel as a normal message (so it can carry feedback
buttons and a thread); if the bot is not in that conversation it is sent back to the
asker through the command's ``response_url`` instead, visible only to them.

An ``ask`` is durable work like a mention (:mod:`bot.slack.durable`): it is recorded as
pending before the ack, claimed by its ``trigger_id`` when answered, and finished by
another worker if this one dies in between.
"""

from __future__ import annotations

import logging

from slack_bolt import Ack, App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.slack.blocks import template_message, text_message
from bot.slack.durable import PendingRecord, PendingWork
from bot.slack.modal import intake_view
from bot.slack.mrkdwn import to_plain
from bot.slack.posting import api_error, post, respond_via
from bot.slack.replies import answer_to_message, bind_posted, remembered
from bot.slack.runtime import SlackRuntime
from common.errors import HwbotError

__all__ = ["SlashCommand", "COMMAND", "HELP_TEXT", "parse_command"]

log = logging.getLogger("hwbot.slack.commands")

COMMAND = "/hwbot"
HELP_TEXT = (
    "*hwbot* answers questions about choosing AI hardware (GPU or TPU) from its notes, and cites them.\n\n"
    "• `/hwbot ask <question>`: an answer with its sources\n"
    "• `/hwbot recommend`: a short form about your project, then a cited GPU/TPU recommendation sent to you\n"
    "• `/hwbot help`: this message\n\n"
    "You can also mention hwbot in a channel or send it a direct message. "
    "Reply in the thread of one of its answers to ask a follow-up without mentioning it again."
)
NOT_ALLOWED = "hwbot is not enabled in this channel. Try it in a direct message, or ask an admin to add this channel."
WORKING = "Looking that up in the notes…"
USAGE_ASK = "Usage: `/hwbot ask <question>`, for example `/hwbot ask when is a TPU better than a GPU?`"
#: Errors meaning "the bot cannot post here": fall back to a private reply via response_url.
#: Pending work and claims of ``/hwbot ask`` are keyed ``command:<trigger_id>``.
PENDING_PREFIX = "command:"
_CANNOT_POST = frozenset({"not_in_channel", "channel_not_found", "is_archived", "restricted_action", "cannot_dm_bot"})


def parse_command(text: str) -> tuple[str, str]:
    """``(subcommand, rest)``; text that starts with no known subcommand is a question."""
    plain = to_plain(text)
    first, _, rest = plain.partition(" ")
    key = first.lower()
    if not plain or key in ("help", "?", "-h", "--help"):
        return "help", ""
    if key in ("recommend", "ask"):
        return key, rest.strip()
    return "ask", plain


class SlashCommand:
    """The ``/hwbot`` listener: an ack function plus one lazy function for answers."""

    def __init__(self, runtime: SlackRuntime) -> None:
        self.runtime = runtime
        self.pending = PendingWork(runtime.state, runtime.worker_id)
        self._client: WebClient | None = None

    def register(self, app: App) -> None:
        self._client = app.client
        app.command(COMMAND)(ack=self.acknowledge, lazy=[self.answer_later])

    @staticmethod
    def work_key(command: dict) -> str | None:
        """The pending-work and claim key of one ``/hwbot ask`` (its trigger id is unique)."""
        trigger = command.get("trigger_id")
        return f"{PENDING_PREFIX}{trigger}" if isinstance(trigger, str) and trigger else None

    def acknowledge(self, ack: Ack, command: dict, client: WebClient) -> None:
        sub, rest = parse_command(str(command.get("text") or ""))
        channel = str(command.get("channel_id") or "")
        if sub == "help":
            message = template_message(HELP_TEXT, "hwbot help")
            ack(text=message.text, blocks=message.blocks, response_type="ephemeral")
            return
        if not self.runtime.settings.channel_allowed(channel):
            log.info("refused /hwbot %s in %s: channel not in HWBOT_ALLOWED_CHANNELS", sub, channel)
            ack(text=NOT_ALLOWED, response_type="ephemeral")
            return
        if sub == "recommend":
            ack()
            self._open_intake(command, client)
            return
        if not rest:
            ack(text=USAGE_ASK, response_type="ephemeral")
            return
        key = self.work_key(command)
        if key:
            fields = ("channel_id", "user_id", "team_id", "text", "response_url", "trigger_id")
            self.pending.record(key, {"kind": "command", "command": {k: command.get(k) for k in fields}})
        ack(text=WORKING, response_type="ephemeral")

    def _open_intake(self, command: dict, client: WebClient) -> None:
        channel = str(command.get("channel_id") or "")
        user = str(command.get("user_id") or "")
        # what the person already said about their team here: the form asks only what remains
        understood = remembered(self.runtime, f"{channel}:{user}") if user else None
        try:
            view = intake_view(channel, self.runtime.questionnaire, understood=understood)
            client.views_open(trigger_id=command.get("trigger_id"), view=view)
            log.info("opened the intake modal for a /hwbot recommend in %s", channel)
        except SlackApiError as exc:
            log.warning("views.open failed: %s", api_error(exc))
            respond_via(command.get("response_url"), text=f"Sorry, I could not open the form ({api_error(exc)}). Please try again.", response_type="ephemeral")

    def answer_later(self, command: dict, client: WebClient) -> None:
        """Lazy: runs after the ack went out; answers ``ask`` only."""
        self._answer(command, client)

    def recover(self, key: str, record: PendingRecord, dead_owner: str) -> None:
        """Finish a dead worker's pending ``/hwbot ask`` (called by the recovery loop)."""
        command = record.get("command")
        if not isinstance(command, dict) or self._client is None:
            self.pending.finish(key)
            return
        self._answer(command, self._client, steal_from=dead_owner)

    def _answer(self, command: dict, client: WebClient, *, steal_from: str | None = None) -> None:
        sub, question = parse_command(str(command.get("text") or ""))
        channel = str(command.get("channel_id") or "")
        key = self.work_key(command)
        if sub != "ask" or not question or not self.runtime.settings.channel_allowed(channel):
            self.pending.finish(key)
            return
        claim = self.runtime.dedupe.claim([key] if key else [], steal_from=steal_from)
        if claim is None:
            log.info("ignored a duplicate /hwbot ask %s", key)
            if steal_from is not None:
                self.pending.finish(key)
            return
        if steal_from is None and key:
            self.pending.adopt(key)
        try:
            self._post_answer(command, client, question, channel)
        finally:
            claim.done()
            self.pending.finish(key)

    def _post_answer(self, command: dict, client: WebClient, question: str, channel: str) -> None:
        user = str(command.get("user_id") or "")
        try:
            answer, message = answer_to_message(self.runtime, question, echo_question=True, channel=channel, user=user)
        except HwbotError as exc:
            respond_via(command.get("response_url"), text=text_message(f"Sorry, I could not answer that: {exc.one_line()}").text, response_type="ephemeral")
            return
        except Exception:
            log.exception("answering /hwbot ask in %s failed", channel)
            respond_via(command.get("response_url"), text="Sorry, something went wrong while answering.", response_type="ephemeral")
            return
        try:
            posted = post(client, channel, message)
            bind_posted(self.runtime, message, posted, channel)
            if posted.get("ts"):
                self.runtime.threads.remember(channel, str(posted["ts"]))
            where = "channel"
        except SlackApiError as exc:
            if api_error(exc) not in _CANNOT_POST:
                log.warning("could not post a /hwbot answer in %s: %s", channel, api_error(exc))
                respond_via(command.get("response_url"), text=f"Sorry, I could not post the answer ({api_error(exc)}).", response_type="ephemeral")
                return
            if not respond_via(command.get("response_url"), text=message.text, blocks=message.blocks, response_type="ephemeral", replace_original=False):
                return
            where = "response_url"
        log.info(
            "answered /hwbot ask in %s via %s: %d chars, %d citations, declined=%s",
            channel,
            where,
            len(answer.answer),
            len(answer.citations),
            answer.declined,
        )

"""Questions from Slack: mentions in channels, direct messages, and follow-ups in our threads.

Bolt acknowledges Events API requests before a listener runs (the listener runs on a
worker thread), so the 3-second budget is spent on the HTTP 200 only. Before that 200,
a middleware records the event as *pending* in the shared state (:mod:`.durable`), so a
crash after the ack cannot lose it. Each delivery is then claimed (:mod:`.dedupe`), so a
Slack retry on any worker, or the twin ``message`` event of a mention, cannot produce a
second answer. While the engine works, the question carries an :eyes: reaction.

What is ignored, deliberately: the bot's own messages and other bots' (``bot_id``),
edits and deletes (``message_changed`` / ``message_deleted`` and every other subtype
except a thread reply also sent to the channel), channel messages outside threads the
bot answered, and malformed events (a ``ts`` or ``thread_ts`` that is not a Slack
timestamp string).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from slack_bolt import App, BoltContext, BoltRequest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.slack.blocks import SlackMessage, template_message, text_message
from bot.slack.dedupe import Claim, event_keys
from bot.slack.durable import PendingRecord, PendingWork
from bot.slack.mrkdwn import mentions_user, to_plain
from bot.slack.posting import add_reaction, answer_metadata, api_error, find_earlier_answer, post, remove_reaction
from bot.slack.replies import answer_to_message, bind_posted
from bot.slack.runtime import SlackRuntime
from bot.slack.threads import ThreadMemory
from common.errors import HwbotError
from common.slack_settings import is_dm_channel

__all__ = ["MessageEvents", "EMPTY_QUESTION_HINT", "Job", "route"]

log = logging.getLogger("hwbot.slack.answering")

#: Subtypes that are still a person asking something (a thread reply also sent to the channel).
_PERSON_SUBTYPES = frozenset({None, "thread_broadcast", "file_share"})
_TS = re.compile(r"\d{1,12}\.\d{1,9}")
_CHANNEL = re.compile(r"[A-Z0-9]{2,40}")
EMPTY_QUESTION_HINT = (
    "Ask me about choosing AI hardware, for example: _When is a TPU a better choice than a GPU?_ "
    "For a recommendation for your project, run `/hwbot recommend`."
)


def _ts(value: Any) -> str | None:
    return value if isinstance(value, str) and _TS.fullmatch(value) else None


def _not_a_person(event: dict, bot_user_id: str | None) -> bool:
    if event.get("subtype") not in _PERSON_SUBTYPES:
        return True  # edits, deletes, joins, bot_message ...
    if event.get("bot_id") or event.get("bot_profile"):
        return True
    user = event.get("user")
    return not isinstance(user, str) or not user or user == bot_user_id


def route(event: dict, bot_user_id: str | None, threads: ThreadMemory) -> str | None:
    """Which kind of question an event is (``mention``, ``dm``, ``follow-up``), or None if it is not for us."""
    if not isinstance(event, dict) or _not_a_person(event, bot_user_id):
        return None
    if event.get("type") == "app_mention":
        return "mention"
    if event.get("type") != "message":
        return None
    channel = str(event.get("channel") or "")
    if event.get("channel_type") == "im" or is_dm_channel(channel):
        return "dm"
    if not threads.knows(channel, _ts(event.get("thread_ts"))):
        return None  # ordinary channel chatter: not for us
    if mentions_user(str(event.get("text") or ""), bot_user_id):
        return None  # the app_mention event for the same message answers it
    return "follow-up"


@dataclass(frozen=True)
class Job:
    """One question to answer, with everything needed to answer it again after a crash."""

    kind: str
    event_id: str | None
    channel: str
    ts: str
    reply_thread: str | None
    text: str
    bot_user_id: str | None
    #: who asked: what they say about their team is remembered per channel and person
    user: str = ""

    @property
    def keys(self) -> list[str]:
        return event_keys(self.event_id, self.channel, self.ts)

    @classmethod
    def from_event(cls, kind: str, event_id: Any, event: dict, bot_user_id: str | None) -> "Job | None":
        """None for a malformed event: no valid channel or ts, or a ``thread_ts`` that is not a timestamp."""
        channel, ts = event.get("channel"), _ts(event.get("ts"))
        thread = event.get("thread_ts")
        if not isinstance(channel, str) or not _CHANNEL.fullmatch(channel) or ts is None:
            return None
        if thread is not None and _ts(thread) is None:
            return None
        reply_thread = thread if kind == "dm" else (thread or ts)
        text = event.get("text")
        user = event.get("user")
        return cls(kind, str(event_id) if isinstance(event_id, str) else None, channel, ts, reply_thread,
                   text if isinstance(text, str) else "", bot_user_id, user if isinstance(user, str) else "")


class MessageEvents:
    """Listeners for ``app_mention`` and ``message`` events, and the recovery of pending ones."""

    def __init__(self, runtime: SlackRuntime) -> None:
        self.runtime = runtime
        self.pending = PendingWork(runtime.state, runtime.worker_id)
        self._client: WebClient | None = None

    def register(self, app: App) -> None:
        self._client = app.client
        app.middleware(self.record_pending)
        app.event("app_mention")(self.on_event)
        app.event("message")(self.on_event)

    # -- before the ack -------------------------------------------------------------

    def _job_for(self, body: dict, context: BoltContext) -> Job | None:
        event = body.get("event")
        if body.get("type") != "event_callback" or not isinstance(event, dict):
            return None
        kind = route(event, context.bot_user_id, self.runtime.threads)
        if kind is None:
            return None
        job = Job.from_event(kind, body.get("event_id"), event, context.bot_user_id)
        if job is None:
            log.info("ignored a malformed %s event %s", kind, body.get("event_id"))
            return None
        if not self.runtime.settings.channel_allowed(job.channel):
            log.info("ignored a %s in %s: channel not in HWBOT_ALLOWED_CHANNELS", kind, job.channel)
            return None
        return job

    def record_pending(self, body: dict, context: BoltContext, next: Callable[[], Any]) -> Any:  # noqa: A002 - Bolt's name
        """Middleware: write an event that will be answered down as pending, then let Bolt ack it."""
        job = self._job_for(body, context) if isinstance(body, dict) else None
        if job is not None and job.event_id:
            self.pending.record(job.event_id, {"event": body["event"], "kind": job.kind, "bot_user_id": job.bot_user_id})
        context["hwbot_job"] = job
        return next()

    # -- after the ack --------------------------------------------------------------

    def on_event(self, body: dict, context: BoltContext, client: WebClient, request: BoltRequest) -> None:
        job = context.get("hwbot_job")
        if not isinstance(job, Job):
            return
        retry = (request.headers.get("x-slack-retry-num") or ["-"])[0]
        self.process(job, client, retry=retry)

    def recover(self, event_id: str, record: PendingRecord, dead_owner: str) -> None:
        """Finish a dead worker's pending event (called by the recovery loop)."""
        event = record.get("event")
        job = Job.from_event(str(record.get("kind") or ""), event_id, event, record.get("bot_user_id")) if isinstance(event, dict) else None
        if job is None or self._client is None:
            self.pending.finish(event_id)
            return
        self.process(job, self._client, steal_from=dead_owner)

    def process(self, job: Job, client: WebClient, *, retry: str = "-", steal_from: str | None = None) -> None:
        """Claim the job, then answer it (or say why not)."""
        claim = self.runtime.dedupe.claim(job.keys, steal_from=steal_from)
        if claim is None:
            log.info("ignored a duplicate %s delivery %s (channel %s ts %s, retry %s)", job.kind, job.event_id, job.channel, job.ts, retry)
            if steal_from is not None:  # already answered (or being answered) by a live worker
                self.pending.finish(job.event_id)
                remove_reaction(client, job.channel, job.ts)
            elif self.runtime.dedupe.is_done(job.keys):
                self.pending.finish_if_mine(job.event_id)  # a late redelivery re-recorded finished work
            return
        if steal_from is None and job.event_id:
            self.pending.adopt(job.event_id)
        question = to_plain(job.text, job.bot_user_id)
        if not question:
            self._deliver(job, claim, client, template_message(EMPTY_QUESTION_HINT, "Ask me about choosing AI hardware."))
            return
        if steal_from is not None and self._already_answered(job, client):
            if job.reply_thread:
                self.runtime.threads.remember(job.channel, job.reply_thread)
            claim.done()
            self.pending.finish(job.event_id)
            remove_reaction(client, job.channel, job.ts)
            log.info("pending %s %s was already answered before the crash", job.kind, job.event_id)
            return
        reacted = steal_from is not None or add_reaction(client, job.channel, job.ts)
        try:
            started = time.perf_counter()
            message, summary = self._compose(job, question)
            if self._deliver(job, claim, client, message) and summary:
                log.info("answered a %s in %s (ts %s): %s, %.2fs", job.kind, job.channel, job.ts, summary, time.perf_counter() - started)
        finally:
            if reacted:
                remove_reaction(client, job.channel, job.ts)

    # -- the steps ------------------------------------------------------------------

    def _already_answered(self, job: Job, client: WebClient) -> bool:
        try:
            return find_earlier_answer(client, job.channel, job.ts, thread_ts=job.reply_thread, event_id=job.event_id)
        except SlackApiError as exc:
            log.warning("could not look for an earlier answer in %s: %s", job.channel, api_error(exc))
            return False

    def _compose(self, job: Job, question: str) -> tuple[SlackMessage, str]:
        """The message to post, and a one-line summary for the log (ids and sizes only)."""
        try:
            memory = f"{job.channel}:{job.user}" if job.user else None
            answer, message = answer_to_message(self.runtime, question, echo_question=False, channel=job.channel, user=job.user,
                                                memory_key=memory)
        except HwbotError as exc:
            log.warning("could not answer a %s in %s: %s", job.kind, job.channel, type(exc).__name__)
            return text_message(f"Sorry, I could not answer that: {exc.one_line()}"), ""
        except Exception:
            log.exception("answering a %s in %s failed", job.kind, job.channel)
            return text_message("Sorry, something went wrong while answering."), ""
        summary = f"{len(answer.answer)} chars, {len(answer.citations)} citations, declined={answer.declined}"
        return message, summary

    def _deliver(self, job: Job, claim: Claim, client: WebClient, message: SlackMessage) -> bool:
        """Post once; settle the claim and the pending record either way.

        The thread is remembered first: a crash right after the post must not leave a
        follow-up unanswered.
        """
        if job.reply_thread:
            self.runtime.threads.remember(job.channel, job.reply_thread)
        try:
            posted = post(client, job.channel, message, thread_ts=job.reply_thread,
                          metadata=answer_metadata(job.event_id, job.channel, job.ts))
        except SlackApiError as exc:
            # Not answered: free the claim so Slack's own retry of this event can try again.
            claim.release()
            self.pending.finish(job.event_id)
            log.warning("could not post the answer to a %s in %s: %s", job.kind, job.channel, api_error(exc))
            return False
        bind_posted(self.runtime, message, posted, job.channel)
        claim.done()
        self.pending.finish(job.event_id)
        return True

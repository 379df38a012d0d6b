"""Interactive payloads: feedback clicks, the "what was wrong?" modal, "Ask the experts", the intake modal.

Feedback: the click is acknowledged first, then stored (see :mod:`bot.slack.feedback`)
and the message is re-rendered *from the stored answer* with a thank-you line:
``chat.update`` for a normal message, the ``response_url`` for an ephemeral one. The
click's own ``message.blocks`` are never sent back: a signed payload may still carry
blocks nobody at Slack rendered (``<!channel>`` included). A *Not helpful* click also
opens a small modal asking why (wrong, not covered, outdated, other, free text).

Hand-off: with ``HWBOT_ESCALATION_CHANNEL`` set, a declined or down-voted answer offers
"Ask the experts", which posts the question to that channel with a link back (once per
answer).

Intake: the submission is validated inside the ack, because only the ack can keep the
modal open with ``response_action: errors``. A valid one closes the modal at once and a
lazy listener scores the profile and sends the recommendation to the person.

Every ``response_url`` use goes through :func:`respond_via`, which does nothing when the
payload has none (an empty one used to make Bolt fail the click after 3 s).

Every answer id is bound to the message it was posted as (:mod:`bot.slack.origin`): a
click naming another channel or message is refused ephemerally and changes nothing. A
reason is only stored for someone who voted on that answer. While the state store is
unavailable, a click gets an ephemeral "try again in a minute" and changes nothing.
"""

from __future__ import annotations

import logging
import time
from typing import Any, cast

from slack_bolt import Ack, App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.slack.blocks import (
    ACTION_ESCALATE,
    ACTION_HELPFUL,
    ACTION_NOT_HELPFUL,
    SlackMessage,
    answer_message,
    echo_text,
    text_message,
    thanks_line,
)
from bot.slack.card import UNAVAILABLE, card_message
from bot.slack.feedback import REASONS, FeedbackRecord, Reason, StoredAnswer
from bot.slack.modal import FEEDBACK_CALLBACK_ID, INTAKE_CALLBACK_ID, feedback_view, parse_feedback, parse_submission
from bot.slack.mrkdwn import escape
from bot.slack.origin import ELSEWHERE, Origin, clicked_from
from bot.slack.posting import api_error, post, respond_via
from bot.slack.replies import bind_posted
from bot.slack.runtime import SlackRuntime
from bot.state import StateUnavailable
from common.errors import HwbotError
from knowledge.qa.answers import Answer, Citation

__all__ = ["FeedbackButtons", "IntakeSubmission", "stored_to_answer"]

log = logging.getLogger("hwbot.slack.interactions")

TOO_OLD = "Thanks! That answer is too old to rate, but you can ask again."
_ESCALATED = "escalated"
_ESCALATION_TTL = 30 * 24 * 3600.0
#: how long a click from a posted message waits for that message's binding to be stored
#: (it is written right after chat.postMessage returns, normally within milliseconds)
_BINDING_WAIT = 2.0


def _get(mapping: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(mapping, dict):
            return None
        mapping = mapping.get(key)
    return mapping


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def stored_to_answer(stored: StoredAnswer) -> Answer:
    """Rebuild the posted answer from what was stored (labels are all a rendering needs)."""
    citations = [Citation(label=label, chunk_id="", source="", pages="", score=0.0) for label in stored.citations]
    return Answer(question=stored.question, answer=stored.answer, declined=stored.declined, citations=citations)


class FeedbackButtons:
    """``Helpful`` / ``Not helpful`` clicks, the reason modal, and ``Ask the experts``."""

    def __init__(self, runtime: SlackRuntime) -> None:
        self.runtime = runtime

    def register(self, app: App) -> None:
        app.action(ACTION_HELPFUL)(self.on_click)
        app.action(ACTION_NOT_HELPFUL)(self.on_click)
        app.action(ACTION_ESCALATE)(self.on_escalate)
        app.view_submission(FEEDBACK_CALLBACK_ID)(self.on_reason)

    def _stored(self, answer_id: str | None, body: dict) -> StoredAnswer | None:
        """The stored answer if the click comes from the message it was posted as; else tell the clicker."""
        try:
            stored = self.runtime.feedback.answer(answer_id) if answer_id else None
        except StateUnavailable:
            respond_via(body.get("response_url"), text=UNAVAILABLE, response_type="ephemeral", replace_original=False)
            return None
        if stored is None:
            respond_via(body.get("response_url"), text=TOO_OLD, response_type="ephemeral", replace_original=False)
            return None
        if stored.origin is not None and not stored.origin.ts and not clicked_from(body)[3]:
            stored = self._bound(answer_id or "", stored)  # a click from a posted message that beat its binding
        if stored.origin is not None:
            stored = stored.model_copy(update={"origin": stored.origin.settled(body)})
        if stored.origin is None or not stored.origin.allows(body, same_user=False):
            log.info("refused a click on answer %s from another conversation", answer_id)
            respond_via(body.get("response_url"), text=ELSEWHERE, response_type="ephemeral", replace_original=False)
            return None
        return stored

    def _bound(self, answer_id: str, stored: StoredAnswer) -> StoredAnswer:
        """The stored answer once its message's binding has landed, waiting up to :data:`_BINDING_WAIT`.

        Anyone in the channel may rate an answer, so a click by another person cannot settle an
        unbound origin by the message it names (:meth:`Origin.settled` trusts only the id's own
        person); it waits for the binding the posting worker is about to write instead."""
        deadline = time.monotonic() + _BINDING_WAIT
        while stored.origin is not None and not stored.origin.ts and time.monotonic() < deadline:
            time.sleep(0.05)
            try:
                stored = self.runtime.feedback.answer(answer_id) or stored
            except StateUnavailable:
                break
        return stored

    def on_click(self, ack: Ack, body: dict, action: dict, client: WebClient) -> None:
        ack()
        helpful = action.get("action_id") == ACTION_HELPFUL
        user = _str(_get(body, "user", "id"))
        team = _str(_get(body, "team", "id")) or _str(_get(body, "user", "team_id"))
        answer_id = _str(action.get("value"))
        if not user or not answer_id:
            return
        clicked = self._stored(answer_id, body)
        if clicked is None:
            return
        try:
            record = self.runtime.feedback.record(answer_id, helpful=helpful, team_id=team, user_id=user)
        except StateUnavailable:
            respond_via(body.get("response_url"), text=UNAVAILABLE, response_type="ephemeral", replace_original=False)
            return
        if record is None:
            respond_via(body.get("response_url"), text=TOO_OLD, response_type="ephemeral", replace_original=False)
            return
        log.info("feedback stored for answer %s: helpful=%s", answer_id, helpful)
        if not helpful:
            self._ask_why(body, client, answer_id)
        self._thank(body, client, answer_id, record, clicked.origin)

    def _ask_why(self, body: dict, client: WebClient, answer_id: str) -> None:
        trigger = _str(body.get("trigger_id"))
        if not trigger:
            return
        try:
            client.views_open(trigger_id=trigger, view=feedback_view({"answer_id": answer_id}, REASONS))
        except SlackApiError as exc:
            log.warning("could not open the feedback modal: %s", api_error(exc))

    def _thank(self, body: dict, client: WebClient, answer_id: str, record: FeedbackRecord, clicked: Origin | None) -> None:
        try:
            stored = self.runtime.feedback.answer(answer_id)
        except StateUnavailable:
            return
        if stored is None or stored.origin is None:
            return
        origin = clicked if not stored.origin.ts and clicked is not None else stored.origin  # the click's, if still unbound
        escalate = bool(self.runtime.escalation_channel) and (not record.helpful or stored.declined)
        message = answer_message(stored_to_answer(stored), answer_id, thanks=thanks_line(record.helpful), escalate=escalate)
        if not origin.ts or clicked_from(body)[3]:  # ephemeral: only its response_url can change it
            respond_via(body.get("response_url"), text=message.text, blocks=message.blocks, replace_original=True)
            return
        channel, ts = origin.channel, origin.ts  # where it was posted (or, before the binding, its own message)
        try:
            client.chat_update(channel=channel, ts=ts, text=message.text, blocks=message.blocks)
        except SlackApiError as exc:
            log.warning("could not update the rated message: %s", api_error(exc))

    def on_reason(self, ack: Ack, body: dict, view: dict) -> None:
        """The reason modal: store why the answer did not help (the vote itself is already stored)."""
        ack()
        reason, comment, meta = parse_feedback(view, REASONS)
        user = _str(_get(body, "user", "id"))
        team = _str(_get(body, "team", "id")) or _str(_get(body, "user", "team_id"))
        answer_id = _str(meta.get("answer_id"))
        if not user or not answer_id:
            return
        try:
            if not self.runtime.feedback.voted(answer_id, team, user):
                log.info("ignored a reason for answer %s from someone who did not vote on it", answer_id)
                return
            self.runtime.feedback.record(
                answer_id, helpful=False, team_id=team, user_id=user, reason=cast(Reason | None, reason), comment=comment
            )
        except StateUnavailable:
            return
        log.info("feedback reason stored for answer %s: %s", answer_id, reason)

    def on_escalate(self, ack: Ack, body: dict, action: dict, client: WebClient) -> None:
        ack()
        channel = self.runtime.escalation_channel
        answer_id = _str(action.get("value"))
        stored = self._stored(answer_id, body)
        if not channel or stored is None or answer_id is None:
            return
        try:
            first = self.runtime.state.add(_ESCALATED, answer_id, "1", ttl=_ESCALATION_TTL)
        except StateUnavailable:
            respond_via(body.get("response_url"), text=UNAVAILABLE, response_type="ephemeral", replace_original=False)
            return
        if not first:
            respond_via(body.get("response_url"), text="The experts already have this question.", response_type="ephemeral",
                        replace_original=False)
            return
        try:
            post(client, channel, self._escalation_message(body, client, stored))
        except SlackApiError as exc:
            try:
                self.runtime.state.delete(_ESCALATED, answer_id)
            except StateUnavailable:
                pass
            log.warning("could not post to the escalation channel: %s", api_error(exc))
            respond_via(body.get("response_url"), text=f"Sorry, I could not reach the experts ({api_error(exc)}).",
                        response_type="ephemeral", replace_original=False)
            return
        log.info("escalated answer %s to %s", answer_id, channel)
        respond_via(body.get("response_url"), text="Sent to the experts. They will reply in this thread.",
                    response_type="ephemeral", replace_original=False)

    def _escalation_message(self, body: dict, client: WebClient, stored: StoredAnswer) -> SlackMessage:
        link = self._permalink(body, client)
        outcome = "declined (the notes do not cover it)" if stored.declined else "marked not helpful"
        blocks: list[dict[str, Any]] = [
            {"type": "section", "text": {"type": "mrkdwn", "verbatim": True, "text": f"*A question for the experts* ({outcome})"}},
            {"type": "context", "elements": [{"type": "plain_text", "emoji": False, "text": f"Question: {escape(echo_text(stored.question, 1000))}"}]},
        ]
        if link:
            blocks.append({"type": "section", "text": {"type": "mrkdwn", "verbatim": True, "text": f"<{escape(link)}|Go to the conversation>"}})
        return SlackMessage(text="A question for the experts", blocks=blocks)

    @staticmethod
    def _permalink(body: dict, client: WebClient) -> str | None:
        container: dict = body.get("container") if isinstance(body.get("container"), dict) else {}  # type: ignore[assignment]
        channel, ts = _str(container.get("channel_id")), _str(container.get("message_ts"))
        if not channel or not ts:
            return None
        try:
            link = client.chat_getPermalink(channel=channel, message_ts=ts).get("permalink")
        except SlackApiError:
            return None
        return link if isinstance(link, str) and link.startswith("https://") and "|" not in link else None


class IntakeSubmission:
    """The ``view_submission`` of the intake modal."""

    def __init__(self, runtime: SlackRuntime) -> None:
        self.runtime = runtime

    def register(self, app: App) -> None:
        app.view_submission(INTAKE_CALLBACK_ID)(ack=self.validate, lazy=[self.recommend_later])

    def validate(self, ack: Ack, view: dict) -> None:
        _, errors = parse_submission(view, self.runtime.questionnaire)
        if errors:
            log.info("intake submission refused: %d invalid input(s)", len(errors))
            ack(response_action="errors", errors=errors)
            return
        ack()

    def recommend_later(self, view: dict, body: dict, client: WebClient) -> None:
        """Lazy: score the profile and send the recommendation to the person who submitted."""
        profile, errors = parse_submission(view, self.runtime.questionnaire)
        user = _str(_get(body, "user", "id"))
        if errors or profile is None or not user:
            return
        try:
            rec = self.runtime.engine.recommend(profile)
            message = card_message(self.runtime, profile, rec, channel=user, user=user)
            outcome: str = rec.recommendation
        except HwbotError as exc:
            message = text_message(f"Sorry, I could not score that profile: {exc.one_line()}")
            outcome = "error"
        except Exception:
            log.exception("scoring an intake submission failed")
            message = text_message("Sorry, something went wrong while scoring your answers.")
            outcome = "error"
        try:
            bind_posted(self.runtime, message, post(client, user, message), user)
            log.info("sent a recommendation (%s) from %d known answers", outcome, len(profile.known()))
        except SlackApiError as exc:
            log.warning("could not send the recommendation: %s", api_error(exc))



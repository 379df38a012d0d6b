"""Interactive payloads: feedback button clicks and the intake modal's submission.

Feedback: the click is acknowledged first, then stored (see :mod:`bot.slack.feedback`)
and the message is updated to thank the person: ``chat.update`` for a normal message,
the ``response_url`` for an ephemeral one (``chat.update`` cannot edit those).

Intake: the submission is validated inside the ack, because only the ack can keep the
modal open with ``response_action: errors``. A valid one closes the modal at once and
a lazy listener scores the profile and sends the recommendation to the person.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import Ack, App, Respond
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.slack.blocks import ACTION_HELPFUL, ACTION_NOT_HELPFUL, text_message, thanked_blocks
from bot.slack.modal import INTAKE_CALLBACK_ID, parse_submission
from bot.slack.mrkdwn import escape
from bot.slack.posting import api_error, post
from bot.slack.recommend_blocks import recommendation_message
from bot.slack.services import SlackServices
from common.errors import HwbotError

__all__ = ["FeedbackButtons", "IntakeSubmission"]

log = logging.getLogger("hwbot.slack.interactions")

TOO_OLD = "Thanks! That answer is too old to rate, but you can ask again."


def _get(mapping: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(mapping, dict):
            return None
        mapping = mapping.get(key)
    return mapping


class FeedbackButtons:
    """``Helpful`` / ``Not helpful`` clicks on an answer."""

    def __init__(self, services: SlackServices) -> None:
        self.services = services

    def register(self, app: App) -> None:
        app.action(ACTION_HELPFUL)(self.on_click)
        app.action(ACTION_NOT_HELPFUL)(self.on_click)

    def on_click(self, ack: Ack, body: dict, action: dict, client: WebClient, respond: Respond) -> None:
        ack()
        helpful = action.get("action_id") == ACTION_HELPFUL
        user = _get(body, "user", "id")
        team = _get(body, "team", "id") or _get(body, "user", "team_id")
        answer_id = str(action.get("value") or "")
        if not user or not answer_id:
            return
        record = self.services.feedback.record(answer_id, helpful=helpful, team_id=team, user_id=str(user))
        if record is None:
            respond(text=TOO_OLD, response_type="ephemeral", replace_original=False)
            return
        log.info("feedback stored for answer %s: helpful=%s", answer_id, helpful)
        blocks = thanked_blocks(_get(body, "message", "blocks") or [], helpful)
        fallback = escape(" ".join(record.answer.split())[:300]) or "hwbot answer"
        container = body.get("container") or {}
        try:
            if container.get("is_ephemeral"):
                respond(text=fallback, blocks=blocks, replace_original=True)
                return
            channel = container.get("channel_id") or _get(body, "channel", "id")
            ts = container.get("message_ts") or _get(body, "message", "ts")
            client.chat_update(channel=channel, ts=ts, text=fallback, blocks=blocks)
        except SlackApiError as exc:
            log.warning("could not update the rated message: %s", api_error(exc))


class IntakeSubmission:
    """The ``view_submission`` of the intake modal."""

    def __init__(self, services: SlackServices) -> None:
        self.services = services

    def register(self, app: App) -> None:
        app.view_submission(INTAKE_CALLBACK_ID)(ack=self.validate, lazy=[self.recommend_later])

    def validate(self, ack: Ack, view: dict) -> None:
        _, errors = parse_submission(view, self.services.questionnaire)
        if errors:
            log.info("intake submission refused: %d invalid input(s)", len(errors))
            ack(response_action="errors", errors=errors)
            return
        ack()

    def recommend_later(self, view: dict, body: dict, client: WebClient) -> None:
        """Lazy: score the profile and send the recommendation to the person who submitted."""
        profile, errors = parse_submission(view, self.services.questionnaire)
        user = _get(body, "user", "id")
        if errors or profile is None or not user:
            return
        try:
            rec = self.services.core.recommend(profile)
            message = recommendation_message(rec, profile, self.services.questionnaire)
            outcome: str = rec.recommendation
        except HwbotError as exc:
            message = text_message(f"Sorry, I could not score that profile: {exc.one_line()}")
            outcome = "error"
        except Exception:
            log.exception("scoring an intake submission failed")
            message = text_message("Sorry, something went wrong while scoring your answers.")
            outcome = "error"
        try:
            post(client, str(user), message)
            log.info("sent a recommendation (%s) from %d known answers", outcome, len(profile.known()))
        except SlackApiError as exc:
            log.warning("could not send the recommendation: %s", api_error(exc))

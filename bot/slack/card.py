"""The recommendation card: a verdict you can change in place (a live what-if).

:func:`card_message` renders the card for any surface that has a
:class:`~knowledge.recommend.profile.WorkloadProfile` and its
:class:`~knowledge.recommend.recommendation.Recommendation`: the intake modal's submission, and
a mention that describes a team's situation (via ``profile_from_text``). The card is
the recommendation message plus:

- a select menu per intake question, set to what was understood ("Not sure" for the
  rest). Changing one re-scores the profile and rewrites the card with ``chat.update``;
- a **Refine** button that opens the intake modal pre-filled with the same answers.

The profile lives server-side in the shared state under a random card id, which is all
the menus and the button carry. A click never makes us trust the message it came
from: the value is checked against the questionnaire, and the card is rebuilt from the
stored profile.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from slack_bolt import Ack, App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.models.blocks import ActionsBlock, Block, ButtonElement, Option, PlainTextObject, StaticSelectElement

from bot.slack.blocks import MAX_BLOCKS, SlackMessage, context
from bot.slack.modal import intake_view
from bot.slack.posting import api_error
from bot.slack.recommend_blocks import recommendation_message
from bot.slack.runtime import SlackRuntime
from knowledge.recommend.profile import FIELD_VALUES, UNKNOWN, WorkloadProfile
from knowledge.recommend.recommendation import Recommendation

__all__ = ["card_message", "whatif_controls", "CardActions", "ACTION_WHATIF_PREFIX", "ACTION_REFINE"]

log = logging.getLogger("hwbot.slack.card")

ACTION_WHATIF_PREFIX = "hwbot_whatif_"
ACTION_REFINE = "hwbot_refine"
_CARDS = "card"
_CARD_TTL = 30 * 24 * 3600.0
_OPTION_LIMIT = 75
#: Slack allows 25 elements in one actions block; a few per block keep the layout readable.
_PER_ROW = 4


def _clip(text: str) -> str:
    return text if len(text) <= _OPTION_LIMIT else text[: _OPTION_LIMIT - 1] + "…"


def _controls(runtime: SlackRuntime, card_id: str, profile: WorkloadProfile) -> list[Block]:
    q = runtime.questionnaire
    current = profile.model_dump()
    selects = []
    for question in q.questions:
        options = [Option(value=f"{card_id}|{o.value}", text=PlainTextObject(text=_clip(o.label))) for o in question.options]
        if not any(o.value == UNKNOWN for o in question.options):
            options.append(Option(value=f"{card_id}|{UNKNOWN}", text=PlainTextObject(text=_clip(q.unknown.label))))
        chosen = next((o for o in options if o.value == f"{card_id}|{current.get(question.field)}"), None)
        selects.append(StaticSelectElement(action_id=f"{ACTION_WHATIF_PREFIX}{question.field}", options=options,
                                           initial_option=chosen, placeholder=PlainTextObject(text=_clip(question.field.replace("_", " ")))))
    rows: list[Block] = [ActionsBlock(block_id=f"hwbot_whatif_{i}", elements=selects[i : i + _PER_ROW])
                         for i in range(0, len(selects), _PER_ROW)]
    rows.append(ActionsBlock(block_id="hwbot_refine", elements=[
        ButtonElement(text=PlainTextObject(text="Refine"), action_id=ACTION_REFINE, value=card_id)]))
    return rows


def whatif_controls(runtime: SlackRuntime, profile: WorkloadProfile, card_id: str | None = None) -> list[dict[str, Any]]:
    """Store the profile under ``card_id`` (new if None); the menus and Refine button that act on it.

    A situational answer carries these too: a change turns that answer into the full card.
    """
    card_id = card_id or uuid.uuid4().hex
    runtime.state.put(_CARDS, card_id, profile.model_dump_json(), ttl=_CARD_TTL)
    lead = context(["_Change any answer to see the verdict change:_"])
    return [b.to_dict() for b in [*lead, *_controls(runtime, card_id, profile)]]


def card_message(runtime: SlackRuntime, profile: WorkloadProfile, rec: Recommendation, card_id: str | None = None) -> SlackMessage:
    """Store the profile under ``card_id`` (new if None) and render the card."""
    controls = whatif_controls(runtime, profile, card_id)
    base = recommendation_message(rec, profile, runtime.questionnaire)
    blocks = base.blocks[: MAX_BLOCKS - len(controls)] + controls
    return SlackMessage(text=base.text, blocks=blocks)


class CardActions:
    """Select changes (re-score in place) and the Refine button."""

    def __init__(self, runtime: SlackRuntime) -> None:
        self.runtime = runtime

    def register(self, app: App) -> None:
        for field in FIELD_VALUES:
            app.action(f"{ACTION_WHATIF_PREFIX}{field}")(self.on_change)
        app.action(ACTION_REFINE)(self.on_refine)

    def _profile(self, card_id: str) -> WorkloadProfile | None:
        raw = self.runtime.state.get(_CARDS, card_id)
        try:
            return WorkloadProfile.model_validate_json(raw) if raw else None
        except ValueError:
            return None

    def on_change(self, ack: Ack, body: dict, action: dict, client: WebClient) -> None:
        ack()
        field = str(action.get("action_id") or "")[len(ACTION_WHATIF_PREFIX):]
        selected: dict = action.get("selected_option") if isinstance(action.get("selected_option"), dict) else {}  # type: ignore[assignment]
        card_id, _, value = str(selected.get("value") or "").partition("|")
        profile = self._profile(card_id)
        allowed = set(FIELD_VALUES.get(field, ())) | {UNKNOWN}
        container: dict = body.get("container") if isinstance(body.get("container"), dict) else {}  # type: ignore[assignment]
        channel, ts = container.get("channel_id"), container.get("message_ts")
        if profile is None or value not in allowed or not isinstance(channel, str) or not isinstance(ts, str):
            log.info("ignored a what-if change on an unknown card or with an unknown value")
            return
        changed = profile.model_validate({**profile.model_dump(), field: value})
        rec = self.runtime.engine.recommend(changed)
        message = card_message(self.runtime, changed, rec, card_id)
        try:
            client.chat_update(channel=channel, ts=ts, text=message.text, blocks=message.blocks)
            log.info("re-scored card %s after a change of %s: %s", card_id, field, rec.recommendation)
        except SlackApiError as exc:
            log.warning("could not update the card: %s", api_error(exc))

    def on_refine(self, ack: Ack, body: dict, action: dict, client: WebClient) -> None:
        ack()
        profile = self._profile(str(action.get("value") or ""))
        trigger = body.get("trigger_id")
        if profile is None or not isinstance(trigger, str):
            return
        channel = (body.get("container") or {}).get("channel_id") if isinstance(body.get("container"), dict) else None
        try:
            client.views_open(trigger_id=trigger, view=intake_view(channel, self.runtime.questionnaire, initial=profile))
        except SlackApiError as exc:
            log.warning("views.open failed: %s", api_error(exc))

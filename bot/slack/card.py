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
the menus and the button carry, together with its origin (:mod:`bot.slack.origin`): the
channel and message the card was posted as, and the person it was made for. A click
never makes us trust the message it came from: a click from another message, channel
or person is refused with an ephemeral note, the value is checked against the
questionnaire, and the card is rebuilt from the stored profile.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from pydantic import BaseModel, ValidationError
from slack_bolt import Ack, App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.models.blocks import ActionsBlock, Block, ButtonElement, Option, PlainTextObject, StaticSelectElement

from bot.slack.blocks import MAX_BLOCKS, SlackMessage, context
from bot.slack.modal import intake_view
from bot.slack.origin import ELSEWHERE, Origin
from bot.slack.posting import api_error, respond_via
from bot.slack.recommend_blocks import recommendation_message
from bot.slack.runtime import SlackRuntime
from bot.state import StateUnavailable
from knowledge.recommend.profile import FIELD_VALUES, UNKNOWN, WorkloadProfile
from knowledge.recommend.recommendation import Recommendation

__all__ = ["card_message", "whatif_controls", "bind_card", "CardActions", "ACTION_WHATIF_PREFIX", "ACTION_REFINE", "UNAVAILABLE"]

log = logging.getLogger("hwbot.slack.card")

ACTION_WHATIF_PREFIX = "hwbot_whatif_"
ACTION_REFINE = "hwbot_refine"
_CARDS = "card"
_CARD_TTL = 30 * 24 * 3600.0
_OPTION_LIMIT = 75
#: Slack allows 25 elements in one actions block; a few per block keep the layout readable.
_PER_ROW = 4
UNAVAILABLE = "hwbot's storage is unavailable right now, so nothing was changed. Please try again in a minute."


class StoredCard(BaseModel):
    profile: WorkloadProfile
    origin: Origin


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


def whatif_controls(
    runtime: SlackRuntime, profile: WorkloadProfile, card_id: str | None = None, *, channel: str = "", user: str = "",
    origin: Origin | None = None,
) -> tuple[str, list[dict[str, Any]]]:
    """Store the profile under ``card_id`` (new if None) for ``origin`` (or channel and user, not yet posted).

    Returns the card id and the menus and Refine button that act on it. A situational
    answer carries these too: a change turns that answer into the full card.
    """
    card_id = card_id or uuid.uuid4().hex
    stored = StoredCard(profile=profile, origin=origin or Origin(channel=channel, user=user))
    runtime.state.put(_CARDS, card_id, stored.model_dump_json(), ttl=_CARD_TTL)
    lead = context(["_Change any answer to see the verdict change:_"])
    return card_id, [b.to_dict() for b in [*lead, *_controls(runtime, card_id, profile)]]


def bind_card(runtime: SlackRuntime, card_id: str, channel: str, ts: str) -> None:
    """The card was posted as message ``ts`` in ``channel``: only clicks from there count."""

    def step(raw: str | None) -> str | None:
        if raw is None:
            return None
        card = StoredCard.model_validate_json(raw)
        return card.model_copy(update={"origin": Origin(channel=channel, ts=ts, user=card.origin.user)}).model_dump_json()

    runtime.state.update(_CARDS, card_id, step, ttl=_CARD_TTL)


def card_message(
    runtime: SlackRuntime, profile: WorkloadProfile, rec: Recommendation, card_id: str | None = None, *,
    channel: str = "", user: str = "", origin: Origin | None = None,
) -> SlackMessage:
    """Store the profile under ``card_id`` (new if None) and render the card.

    While the state store is unavailable the card goes out without its menus.
    """
    base = recommendation_message(rec, profile, runtime.questionnaire)
    try:
        card_id, controls = whatif_controls(runtime, profile, card_id, channel=channel, user=user, origin=origin)
    except StateUnavailable:
        return base
    blocks = base.blocks[: MAX_BLOCKS - len(controls)] + controls
    return SlackMessage(text=base.text, blocks=blocks, issued=(("card", card_id),))


class CardActions:
    """Select changes (re-score in place) and the Refine button."""

    def __init__(self, runtime: SlackRuntime) -> None:
        self.runtime = runtime

    def register(self, app: App) -> None:
        for field in FIELD_VALUES:
            app.action(f"{ACTION_WHATIF_PREFIX}{field}")(self.on_change)
        app.action(ACTION_REFINE)(self.on_refine)

    def _card(self, card_id: str, body: dict) -> StoredCard | None:
        """The stored card, if the click comes from where it was posted and from its person.

        Otherwise the clicker is told (ephemerally) and None is returned.
        """
        try:
            raw = self.runtime.state.get(_CARDS, card_id) if card_id else None
        except StateUnavailable:
            respond_via(body.get("response_url"), text=UNAVAILABLE, response_type="ephemeral", replace_original=False)
            return None
        try:
            card = StoredCard.model_validate_json(raw) if raw else None
        except (ValueError, ValidationError):
            card = None
        if card is not None:
            card = card.model_copy(update={"origin": card.origin.settled(body)})  # a click that beat the binding
        if card is not None and not card.origin.allows(body, same_user=True):
            log.info("refused a card action from another conversation or person (card %s)", card_id)
            respond_via(body.get("response_url"), text=ELSEWHERE, response_type="ephemeral", replace_original=False)
            return None
        return card

    def on_change(self, ack: Ack, body: dict, action: dict, client: WebClient) -> None:
        ack()
        field = str(action.get("action_id") or "")[len(ACTION_WHATIF_PREFIX):]
        selected: dict = action.get("selected_option") if isinstance(action.get("selected_option"), dict) else {}  # type: ignore[assignment]
        card_id, _, value = str(selected.get("value") or "").partition("|")
        allowed = set(FIELD_VALUES.get(field, ())) | {UNKNOWN}
        if value not in allowed:
            log.info("ignored a what-if change with an unknown value")
            return
        card = self._card(card_id, body)
        if card is None:
            return
        changed = card.profile.model_validate({**card.profile.model_dump(), field: value})
        rec = self.runtime.engine.recommend(changed)
        channel, ts = card.origin.channel, card.origin.ts
        if not ts:
            return  # an unposted card has no message to change
        message = card_message(self.runtime, changed, rec, card_id, origin=card.origin)
        try:
            client.chat_update(channel=channel, ts=ts, text=message.text, blocks=message.blocks)
            log.info("re-scored card %s after a change of %s: %s", card_id, field, rec.recommendation)
        except SlackApiError as exc:
            log.warning("could not update the card: %s", api_error(exc))

    def on_refine(self, ack: Ack, body: dict, action: dict, client: WebClient) -> None:
        ack()
        card = self._card(str(action.get("value") or ""), body)
        trigger = body.get("trigger_id")
        if card is None or not isinstance(trigger, str):
            return
        try:
            client.views_open(trigger_id=trigger, view=intake_view(card.origin.channel, self.runtime.questionnaire, initial=card.profile))
        except SlackApiError as exc:
            log.warning("views.open failed: %s", api_error(exc))

"""One answer, ready to post: ask the engine, remember the answer for feedback, render it.

Mentions, DMs, follow-ups, ``/hwbot ask`` and the assistant pane all call
:func:`answer_to_message`, so every surface answers with the same engine, the same
feedback buttons and the same escalation offer.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bot.conversation import MEMORY_NAMESPACE, MEMORY_TTL, Understood, converse
from bot.slack.blocks import MAX_BLOCKS, SlackMessage, answer_message
from bot.slack.card import bind_card, whatif_controls
from bot.slack.origin import posted_origin
from bot.slack.runtime import SlackRuntime
from bot.state import StateUnavailable
from knowledge.qa.answers import Answer

__all__ = ["answer_to_message", "bind_posted", "remembered"]


def remembered(runtime: SlackRuntime, key: str) -> Understood:
    """What this person said about their team in this conversation (empty if nothing, unreadable,
    or while the state store is unavailable: the answer still goes out, only without memory)."""
    try:
        raw = runtime.state.get(MEMORY_NAMESPACE, key)
    except StateUnavailable:
        return Understood()
    try:
        return Understood.model_validate_json(raw) if raw else Understood()
    except ValueError:
        return Understood()


def answer_to_message(
    runtime: SlackRuntime, question: str, *, echo_question: bool, channel: str = "", user: str = "",
    memory_key: str | None = None,
) -> tuple[Answer, SlackMessage]:
    """Ask the engine and render the answer with feedback buttons: ``(Answer, SlackMessage)``.

    A situational answer (the team described its setup) also gets the card's what-if menus,
    set to what was understood, so a wrong reading is one click to fix, not a new message.
    With ``memory_key`` (``<channel>:<user>``) the conversation remembers what the person
    said about the team (:mod:`bot.conversation`): corrections update it, and
    ``/hwbot recommend`` starts from it.
    The ids behind the buttons are issued for ``channel`` and ``user``; call
    :func:`bind_posted` once the message is posted. While the state store is unavailable
    the answer goes out without buttons or menus (they would point at nothing).
    """
    if memory_key is None:
        advice = runtime.engine.ask(question)
    else:
        before = remembered(runtime, memory_key)
        advice, after = converse(lambda text: runtime.engine.ask(text).answer, question, before,
                                 getattr(runtime.engine, "extract", None))
        if after != before:
            try:
                runtime.state.put(MEMORY_NAMESPACE, memory_key, after.model_dump_json(), ttl=MEMORY_TTL)
            except StateUnavailable:
                pass  # answered all the same; the reading is not remembered this time
    answer = advice.answer
    try:
        answer_id: str | None = runtime.feedback.remember(answer, channel=channel, user=user)
    except StateUnavailable:
        answer_id = None
    message = answer_message(answer, answer_id, echo_question=echo_question, escalate=bool(runtime.escalation_channel) and answer.declined)
    issued: tuple[tuple[str, str], ...] = (("answer", answer_id),) if answer_id else ()
    if advice.profile is not None and advice.recommendation is not None:
        try:
            card_id, controls = whatif_controls(runtime, advice.profile, channel=channel, user=user)
            message = SlackMessage(text=message.text, blocks=message.blocks[: MAX_BLOCKS - len(controls)] + controls)
            issued += (("card", card_id),)
        except StateUnavailable:
            pass
    return answer, replace(message, issued=issued)


def bind_posted(runtime: SlackRuntime, message: SlackMessage, posted: dict[str, Any], channel: str) -> None:
    """Bind the ids a posted message carries to where it landed (see :mod:`bot.slack.origin`)."""
    where, ts = posted_origin(posted, channel)
    for kind, ident in message.issued:
        try:
            if kind == "answer":
                runtime.feedback.bind(ident, where, ts)
            elif kind == "card":
                bind_card(runtime, ident, where, ts)
        except StateUnavailable:
            pass

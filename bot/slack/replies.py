"""One answer, ready to post: ask the engine, remember the answer for feedback, render it.

Mentions, DMs, follow-ups, ``/hwbot ask`` and the assistant pane all call
:func:`answer_to_message`, so every surface answers with the same engine, the same
feedback buttons and the same escalation offer.
"""

from __future__ import annotations

from bot.conversation import MEMORY_NAMESPACE, MEMORY_TTL, Understood, converse
from bot.slack.blocks import MAX_BLOCKS, SlackMessage, answer_message
from bot.slack.card import whatif_controls
from bot.slack.runtime import SlackRuntime
from knowledge.qa.answers import Answer

__all__ = ["answer_to_message", "remembered"]


def remembered(runtime: SlackRuntime, key: str) -> Understood:
    """What this person said about their team in this conversation (empty if nothing, or unreadable)."""
    raw = runtime.state.get(MEMORY_NAMESPACE, key)
    try:
        return Understood.model_validate_json(raw) if raw else Understood()
    except ValueError:
        return Understood()


def answer_to_message(
    runtime: SlackRuntime, question: str, *, echo_question: bool, memory_key: str | None = None
) -> tuple[Answer, SlackMessage]:
    """Ask the engine and render the answer with feedback buttons: ``(Answer, SlackMessage)``.

    A situational answer (the team described its setup) also gets the card's what-if menus,
    set to what was understood, so a wrong reading is one click to fix, not a new message.
    With ``memory_key`` (``<channel>:<user>``) the conversation remembers what the person
    said about the team (:mod:`bot.conversation`): corrections update it, and
    ``/hwbot recommend`` starts from it.
    """
    if memory_key is None:
        advice = runtime.engine.ask(question)
    else:
        before = remembered(runtime, memory_key)
        advice, after = converse(lambda text: runtime.engine.ask(text).answer, question, before)
        if after != before:
            runtime.state.put(MEMORY_NAMESPACE, memory_key, after.model_dump_json(), ttl=MEMORY_TTL)
    answer = advice.answer
    answer_id = runtime.feedback.remember(answer)
    message = answer_message(answer, answer_id, echo_question=echo_question, escalate=bool(runtime.escalation_channel) and answer.declined)
    if advice.profile is not None and advice.recommendation is not None:
        controls = whatif_controls(runtime, advice.profile)
        message = SlackMessage(text=message.text, blocks=message.blocks[: MAX_BLOCKS - len(controls)] + controls)
    return answer, message

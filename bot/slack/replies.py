"""One answer, ready to post: ask the engine, remember the answer for feedback, render it.

Mentions, DMs, follow-ups, ``/hwbot ask`` and the assistant pane all call
:func:`answer_to_message`, so every surface answers with the same engine, the same
feedback buttons and the same escalation offer.
"""

from __future__ import annotations

from bot.slack.blocks import SlackMessage, answer_message
from bot.slack.runtime import SlackRuntime
from knowledge.qa.models import Answer

__all__ = ["answer_to_message"]


def answer_to_message(runtime: SlackRuntime, question: str, *, echo_question: bool) -> tuple[Answer, SlackMessage]:
    """Ask the engine and render the answer with feedback buttons: ``(Answer, SlackMessage)``."""
    answer = runtime.engine.ask(question)
    answer_id = runtime.feedback.remember(answer)
    message = answer_message(answer, answer_id, echo_question=echo_question, escalate=bool(runtime.escalation_channel) and answer.declined)
    return answer, message

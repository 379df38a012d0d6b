"""Block Kit for answers, built with slack_sdk's models so Slack's limits are checked locally.

Slack rejects a message whose section text exceeds 3,000 characters or which has more
than 50 blocks; we split and cap before sending, and ``to_dict()`` re-validates. All
text that is not our own template is escaped (see :mod:`bot.slack.mrkdwn`), and every
text object is ``verbatim`` so Slack does not auto-link or auto-mention anything in it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ContextBlock,
    MarkdownTextObject,
    PlainTextObject,
    SectionBlock,
)

from bot.slack.mrkdwn import escape
from knowledge.qa.answers import Answer

__all__ = [
    "SlackMessage",
    "SECTION_LIMIT",
    "MAX_BLOCKS",
    "FEEDBACK_BLOCK_ID",
    "ACTION_HELPFUL",
    "ACTION_NOT_HELPFUL",
    "ACTION_ESCALATE",
    "ESCALATE_BLOCK_ID",
    "escalate_actions",
    "pack_lines",
    "echo_text",
    "split_text",
    "md",
    "section",
    "context",
    "answer_message",
    "feedback_actions",
    "thanks_line",
    "text_message",
    "template_message",
    "cap_blocks",
]

#: Slack's maximum characters in one section's text.
SECTION_LIMIT = 3000
#: Slack's maximum blocks in one message.
MAX_BLOCKS = 50
#: Context blocks hold at most 10 elements.
CONTEXT_ELEMENTS = 10
FALLBACK_LIMIT = 300
QUESTION_ECHO_LIMIT = 300

FEEDBACK_BLOCK_ID = "hwbot_feedback"
ACTION_HELPFUL = "hwbot_feedback_helpful"
ACTION_NOT_HELPFUL = "hwbot_feedback_not_helpful"
ACTION_ESCALATE = "hwbot_escalate"
ESCALATE_BLOCK_ID = "hwbot_escalate"
RECOMMEND_HINT = "For a hardware choice, try `/hwbot recommend`: a few questions, then a cited recommendation."

_PARAGRAPHS = re.compile(r"\n\s*\n")
#: Room left in each answer section for the bold markers added to lead-in labels.
_ANSWER_LIMIT = SECTION_LIMIT - 100
#: A short lead-in label at the start of a line ("GPU side:", "Bottom line:"), shown in bold.
_LEAD_IN = re.compile(r"(?m)^([A-Z][A-Za-z ]{1,24}):(?= )")
_SENTENCES = re.compile(r"(?<=[.!?])\s+")
#: Something shaped like a citation label (``[file_gpu001:c0002]``): never echoed as one.
_CITATION_SHAPE = re.compile(r"\[([^\[\]]*:c\d{4})\]")


@dataclass(frozen=True)
class SlackMessage:
    """A ready-to-send message: escaped fallback ``text`` (notifications) and block dicts."""

    text: str
    blocks: list[dict[str, Any]] = field(default_factory=list)
    #: ``(kind, id)`` of the answer and card ids its buttons carry, bound to the message once posted.
    issued: tuple[tuple[str, str], ...] = ()


def _escaped_len(text: str) -> int:
    return len(text) + 4 * text.count("&") + 3 * (text.count("<") + text.count(">"))


def _hard_split(text: str, limit: int) -> Iterator[str]:
    """Split by characters so that each piece, once escaped, fits (never splits an entity)."""
    piece: list[str] = []
    size = 0
    for ch in text:
        width = _escaped_len(ch)
        if size + width > limit and piece:
            yield "".join(piece)
            piece, size = [], 0
        piece.append(ch)
        size += width
    if piece:
        yield "".join(piece)


def _units(text: str, limit: int) -> Iterator[tuple[str, str]]:
    """(separator-before, unit) pairs: paragraphs, else lines, else sentences, else character runs."""
    first = True
    for para in _PARAGRAPHS.split(text.strip()):
        para = para.strip()
        if not para:
            continue
        para_sep, first = ("" if first else "\n\n"), False
        if _escaped_len(para) <= limit:
            yield para_sep, para
            continue
        for l_index, line in enumerate(part for part in para.split("\n") if part.strip()):
            line_sep = para_sep if l_index == 0 else "\n"
            if _escaped_len(line) <= limit:
                yield line_sep, line
                continue
            for s_index, sentence in enumerate(_SENTENCES.split(line)):
                sep = line_sep if s_index == 0 else " "
                if _escaped_len(sentence) <= limit:
                    yield sep, sentence
                    continue
                for h_index, chunk in enumerate(_hard_split(sentence, limit)):
                    yield (sep if h_index == 0 else ""), chunk


def split_text(text: str, limit: int = SECTION_LIMIT) -> list[str]:
    """Escape ``text`` and cut it into pieces of at most ``limit`` characters each.

    Cuts fall between paragraphs when possible, then between sentences, and only
    inside a sentence that is itself longer than the limit.
    """
    chunks: list[str] = []
    current = ""
    for sep, unit in _units(text, limit):
        candidate = (current + sep + unit) if current else unit
        if _escaped_len(candidate) <= limit:
            current = candidate
        else:
            chunks.append(current)
            current = unit
    if current:
        chunks.append(current)
    return [escape(c) for c in chunks]


def md(text: str) -> MarkdownTextObject:
    """A verbatim mrkdwn object: Slack will not auto-link channels, users or URLs in it."""
    return MarkdownTextObject(text=text, verbatim=True)


def section(text: str, block_id: str | None = None) -> SectionBlock:
    """A section from already-escaped mrkdwn (at most 3,000 characters)."""
    return SectionBlock(text=md(text), block_id=block_id)


def pack_lines(lines: Sequence[str], head: str = "", limit: int = SECTION_LIMIT) -> list[str]:
    """Join already-escaped lines into as few texts of at most ``limit`` characters as possible.

    The one packer behind context blocks and titled sections: a line longer than the
    limit is cut, and ``head`` (a bold title) starts the first text.
    """
    texts: list[str] = []
    current = head
    for line in lines:
        line = line[: limit - 10]
        candidate = f"{current}\n{line}" if current else line
        if len(candidate) <= limit:
            current = candidate
        else:
            texts.append(current)
            current = line
    if current:
        texts.append(current)
    return texts


def context(lines: Sequence[str], block_id: str | None = None) -> list[ContextBlock]:
    """Context blocks for already-escaped lines, packed into ≤3,000-character elements."""
    elements = pack_lines(lines)
    blocks: list[ContextBlock] = []
    for start in range(0, len(elements), CONTEXT_ELEMENTS):
        part = elements[start : start + CONTEXT_ELEMENTS]
        bid = block_id if block_id and start == 0 else None
        blocks.append(ContextBlock(elements=[md(e) for e in part], block_id=bid))
    return blocks


def echo_text(text: str, limit: int = QUESTION_ECHO_LIMIT) -> str:
    """Someone's words, made safe to show back: one line, capped, no citation-shaped labels.

    Shown (escaped) in ``plain_text`` elements, so ``*bold*`` stays literal characters;
    a typed ``[file_gpu001:c0002]`` loses its brackets so it cannot pass for one of our
    citations.
    """
    flat = " ".join(text.split())
    if len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    return _CITATION_SHAPE.sub(r"(\1)", flat)


def _plain_context(text: str, block_id: str | None = None) -> ContextBlock:
    return ContextBlock(elements=[PlainTextObject(text=text, emoji=False)], block_id=block_id)


def _escalate_button(answer_id: str) -> ButtonElement:
    return ButtonElement(text=PlainTextObject(text="Ask the experts", emoji=True), action_id=ACTION_ESCALATE, value=answer_id)


def escalate_actions(answer_id: str) -> ActionsBlock:
    """Only the "Ask the experts" button (after a down-vote)."""
    return ActionsBlock(block_id=ESCALATE_BLOCK_ID, elements=[_escalate_button(answer_id)])


def feedback_actions(answer_id: str, *, escalate: bool = False) -> ActionsBlock:
    """The Helpful / Not helpful buttons (and "Ask the experts"); ``value`` carries the stored answer's id."""
    extra = [_escalate_button(answer_id)]
    return ActionsBlock(
        block_id=FEEDBACK_BLOCK_ID,
        elements=[
            ButtonElement(
                text=PlainTextObject(text="Helpful", emoji=True),
                action_id=ACTION_HELPFUL,
                value=answer_id,
                style="primary",
            ),
            ButtonElement(
                text=PlainTextObject(text="Not helpful", emoji=True),
                action_id=ACTION_NOT_HELPFUL,
                value=answer_id,
            ),
            *(extra if escalate else []),
        ],
    )


def cap_blocks(body: list[Block], tail: list[Block], note: str) -> list[Block]:
    """At most :data:`MAX_BLOCKS`: ``tail`` (sources, buttons) always survives; ``body`` is cut with a note."""
    room = MAX_BLOCKS - len(tail)
    if len(body) > room:
        body = body[: max(room - 1, 0)] + [section(note)]
    return (body + tail)[:MAX_BLOCKS]


def _fallback(text: str) -> str:
    flat = " ".join(text.split())
    if len(flat) > FALLBACK_LIMIT:
        flat = flat[: FALLBACK_LIMIT - 1].rstrip() + "…"
    return escape(flat)


def answer_message(
    answer: Answer,
    answer_id: str | None = None,
    *,
    echo_question: bool = False,
    escalate: bool = False,
    thanks: str | None = None,
) -> SlackMessage:
    """The Slack rendering of an :class:`~knowledge.qa.answers.Answer`.

    ``echo_question`` repeats the question on top: a slash command's text is not shown
    to the channel, so its answer must say what was asked. It is shown as plain text
    (see :func:`echo_text`). ``escalate`` offers "Ask the experts" on a declined answer.
    ``thanks`` replaces the buttons with a thank-you line (after a vote).
    """
    body: list[Block] = []
    if echo_question:
        body.append(_plain_context(f"Question: {escape(echo_text(answer.question))}", block_id="hwbot_question"))
    text = answer.answer.strip()
    if answer.declined:
        declined = text or "The notes do not cover that question, so I will not guess."
        body.extend(section(chunk) for chunk in split_text(declined))
        if "/hwbot recommend" not in declined:
            body.append(section(RECOMMEND_HINT))
    else:
        body.extend(section(_LEAD_IN.sub(r"*\1:*", chunk)) for chunk in split_text(text or "(empty answer)", _ANSWER_LIMIT))
    tail: list[Block] = []
    if answer.notices:
        tail.extend(context([f"_{escape(n)}_" for n in answer.notices]))
    if answer.citations and not answer.declined:
        labels = [f"• {escape(c.label)}" for c in answer.citations]
        tail.extend(context(["*Sources*", *labels], block_id="hwbot_sources"))
    if thanks is not None:
        tail.append(ContextBlock(block_id=FEEDBACK_BLOCK_ID, elements=[md(thanks)]))
        if escalate and answer_id:
            tail.append(escalate_actions(answer_id))
    elif answer_id:
        tail.append(feedback_actions(answer_id, escalate=escalate))
    blocks = cap_blocks(body, tail, "_(The answer was cut to fit one Slack message; ask a narrower question.)_")
    fallback = text if text else RECOMMEND_HINT
    return SlackMessage(text=_fallback(fallback), blocks=[b.to_dict() for b in blocks])


def text_message(text: str) -> SlackMessage:
    """A notice built from raw text (errors, refusals): escaped, split, capped."""
    blocks = [section(c) for c in split_text(text)][:MAX_BLOCKS]
    return SlackMessage(text=_fallback(text), blocks=[b.to_dict() for b in blocks])


def template_message(mrkdwn: str, fallback: str) -> SlackMessage:
    """A message from our own mrkdwn template (not escaped: it must contain no user text)."""
    sections = [section(part.strip()) for part in mrkdwn.split("\n\n\n") if part.strip()]
    return SlackMessage(text=fallback, blocks=[b.to_dict() for b in sections[:MAX_BLOCKS]])


def thanks_line(helpful: bool) -> str:
    verdict = "helpful" if helpful else "not helpful"
    return f"Thanks for the feedback: marked *{verdict}*."

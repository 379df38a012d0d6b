"""The ``answer`` text: sentences with their citation markers, and a question's asks in order.

Every sentence is printed verbatim with the ``[chunk_id]`` it is quoted from; a two-sided
answer puts each side on its own line under "For GPUs:" / "For TPUs:"; a question of
several asks gets one line per ask under the ask's short label.
"""

from __future__ import annotations

from knowledge.qa.answers import Answer, AnswerSentence, Citation
from knowledge.qa.asks import Ask

__all__ = ["join_sentences", "join_asks"]


_HEADINGS = {"gpu": "For GPUs:", "tpu": "For TPUs:"}


def join_sentences(sentences: list[AnswerSentence]) -> str:
    """The ``answer`` string: sentences with inline ``[chunk_id]`` markers, one line per side."""
    lines: list[str] = []
    current_role: str | None = None
    for s in sentences:
        piece = f"{s.text} [{s.chunk_id}]"
        if s.role in _HEADINGS and s.role != current_role:
            lines.append(f"{_HEADINGS[s.role]} {piece}")
        elif lines and current_role == s.role:
            lines[-1] += " " + piece
        else:
            lines.append(piece)
        current_role = s.role
    return "\n".join(lines)


def join_asks(question: str, asks: list[Ask], parts: list[Answer], notices: list[str], mode: str) -> Answer:
    """One answer to a question of several asks: each ask's answer in order, under its label.

    A part that declines says so in its own line; the whole declines only when every part does.
    """
    lines: list[str] = []
    citations: list[Citation] = []
    seen: set[str] = set()
    for ask, part in zip(asks, parts):
        body = part.answer.replace("\n", " ") if part.declined else part.answer
        lines.append(f"{ask.label}: {body}")
        for c in part.citations:
            if c.chunk_id not in seen:
                seen.add(c.chunk_id)
                citations.append(c)
    declined = all(p.declined for p in parts)
    return Answer(
        question=question,
        answer=parts[0].answer if declined else "\n".join(lines),
        declined=declined,
        citations=[] if declined else citations,
        sentences=[s for p in parts for s in p.sentences],
        notices=list(notices),
        mode="declined" if declined else mode,
        intent=parts[0].intent,
        decline_reason=parts[0].decline_reason if declined else "",
        ask="multi",
        parts=parts,
    )

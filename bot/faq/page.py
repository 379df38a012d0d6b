"""The markdown FAQ page ``hwbot faq --out`` writes.

The page is meant to be pasted next to the team's own docs, so it reads as a plain
FAQ: one heading per question, the answer with numbered citation markers, and that
answer's sources by their exact citation labels. Questions the notes do not cover
are not dropped: they are listed together at the end, with the line of the docs file
they came from, so a reader sees at once what still needs a human answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.faq.extract import FoundQuestion
from bot.plaintext import numbered
from knowledge.qa.answers import Answer

__all__ = ["FaqEntry", "render_markdown", "NOT_COVERED"]

NOT_COVERED = "Not covered by the notes"


@dataclass(frozen=True)
class FaqEntry:
    found: FoundQuestion
    answer: Answer


def _heading_text(text: str) -> str:
    # A heading is one line; a leading '#' or trailing '#'s would change its level.
    return " ".join(text.split()).strip("# ") or text


def _answer_block(answer: Answer) -> list[str]:
    body, sources = numbered(answer)
    lines: list[str] = []
    for note in answer.notices:
        lines += [f"_Note: {note}_", ""]
    # Each line of an answer (e.g. "GPU side: ...") is its own paragraph in markdown.
    for part in body.split("\n"):
        if part.strip():
            lines += [part.strip(), ""]
    lines.append("Sources:")
    lines.append("")
    lines.extend(f"- {number} `{label}`" for number, label in (s.split(" ", 1) for s in sources))
    lines.append("")
    return lines


def render_markdown(entries: list[FaqEntry], *, docs_name: str) -> str:
    """The whole FAQ page, answered questions first in document order, then the declined ones."""
    answered = [e for e in entries if not e.answer.declined]
    declined = [e for e in entries if e.answer.declined]
    lines = [
        f"# FAQ: answers to the questions in {docs_name}",
        "",
        f"hwbot found {len(entries)} questions in `{docs_name}` and answered {len(answered)} from its "
        "GPU/TPU notes. Each answer quotes the notes; the numbers in brackets point to the answer's sources.",
        "",
    ]
    for entry in answered:
        lines += [f"## {_heading_text(entry.found.text)}", ""]
        lines += _answer_block(entry.answer)
    lines += [f"## {NOT_COVERED}", ""]
    if declined:
        lines += ["The notes do not cover these questions, so hwbot left them unanswered:", ""]
        lines.extend(f"- {' '.join(e.found.text.split())} (line {e.found.line})" for e in declined)
    else:
        lines.append("Every question was answered from the notes.")
    return "\n".join(lines).rstrip() + "\n"

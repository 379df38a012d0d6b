"""Plain-text rendering of answers for terminals and files (REPL, CLI, FAQ).

Answers are shown with numbered citations and a Sources list, so a reader can follow
every sentence to its chunk. Slack has its own Block Kit rendering in ``bot.slack``.
"""

from __future__ import annotations

import re

from knowledge.models import Answer

__all__ = ["numbered", "render_answer_text"]

_MARK = re.compile(r"\[([A-Za-z0-9_\-]+:c\d{4})\]")


def numbered(answer: Answer) -> tuple[str, list[str]]:
    """Replace inline ``[chunk_id]`` markers with ``[n]`` and return the Sources lines."""
    order = {c.chunk_id: i + 1 for i, c in enumerate(answer.citations)}
    body = _MARK.sub(lambda m: f"[{order[m.group(1)]}]" if m.group(1) in order else m.group(0), answer.answer)
    sources = [f"[{order[c.chunk_id]}] {c.label}" for c in answer.citations]
    return body, sources


def render_answer_text(answer: Answer) -> str:
    """The answer with numbered markers, then its Sources; a refusal as it is."""
    lines = [f"Note: {n}" for n in answer.notices]
    if answer.declined:
        lines.append(answer.answer)
        return "\n".join(lines)
    body, sources = numbered(answer)
    lines.append(body)
    lines.append("")
    lines.append("Sources:")
    lines.extend(f"  {s}" for s in sources)
    return "\n".join(lines)

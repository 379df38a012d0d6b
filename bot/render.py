"""Plain-text rendering of answers and recommendations, for terminals and files.

The one place the REPL, the CLI and the FAQ page turn result objects into plain text (no
colour codes, so it works through a pipe and in a log). Answers are shown with numbered
citations and a Sources list, so a reader can follow every sentence to its chunk.
Slack has its own Block Kit rendering in ``bot.slack``.
"""

from __future__ import annotations

import re

from knowledge.qa.models import Answer
from knowledge.recommend.models import VERDICT_LABELS, Flip, Recommendation

__all__ = ["numbered", "render_answer_text", "render_recommendation_text", "render_flips"]

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


def render_flips(flips: list[Flip]) -> list[str]:
    """One line per field: ``custom_kernels: some → gpu; critical → gpu``."""
    by_field: dict[str, list[str]] = {}
    for flip in flips:
        by_field.setdefault(flip.field, []).append(f"{flip.value} → {flip.recommendation}")
    return [f"{field}: {'; '.join(changes)}" for field, changes in by_field.items()]


def render_recommendation_text(rec: Recommendation, *, max_reasons: int = 6) -> str:
    """The whole recommendation as readable text (ends without a trailing newline)."""
    lines = [
        f"Recommendation: {VERDICT_LABELS[rec.recommendation]} [{rec.recommendation}]",
        f"Confidence: {rec.confidence:.2f}",
        "Scores: " + ", ".join(f"{option} {value:g}" for option, value in rec.scores.items()),
    ]
    for option, why in rec.blocked.items():
        lines.append(f"Blocked: {option} ({'; '.join(why)})")

    lines += ["", "Why:"]
    if not rec.reasons:
        lines.append("  No answer pointed either way; GPUs are the default because they run everywhere.")
    for i, reason in enumerate(rec.reasons[:max_reasons], start=1):
        lines.append(f"  {i}. {reason.factor} [{reason.effect}]")
        if reason.citations:
            lines.append(f"     {'; '.join(reason.citations)}")
    hidden = rec.reasons[max_reasons:]
    if hidden:
        rest = ", ".join(f"{r.factor.split(':', 1)[0]} [{r.effect}]" for r in hidden)
        lines.append(f"  ... and {len(hidden)} smaller factor(s): {rest}")

    if rec.caveats:
        lines += ["", "Caveats:"]
        lines += [f"  - {caveat}" for caveat in rec.caveats]

    lines += ["", "What would change this:"]
    flips = render_flips(rec.flips)
    lines += [f"  - {line}" for line in flips] if flips else ["  - No single different answer would change it."]
    return "\n".join(lines)

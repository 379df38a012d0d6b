"""Plain-text rendering of answers and recommendations, for terminals and files.

The one place the REPL, the CLI and the FAQ page turn result objects into plain text (no
colour codes, so it works through a pipe and in a log). Answers are shown with numbered
citations and a Sources list, so a reader can follow every sentence to its chunk.
Slack has its own Block Kit rendering in ``bot.slack``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from knowledge.qa.answers import Answer

if TYPE_CHECKING:  # a question's answer renders without the intake or the recommendation models
    from bot.intake.questions import Questionnaire
    from knowledge.recommend.recommendation import Flip, Reason, Recommendation

__all__ = ["numbered", "render_answer_text", "render_recommendation_text", "render_flips", "ReasonLine", "reason_lines"]

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


@dataclass(frozen=True)
class ReasonLine:
    """One reason as people read it: the answer in the intake's words, its role, the cited sentence."""

    answer: str  # "Architecture changes: Often (every week or so)", or "Default" for the GPU default
    role: str  # "must be fixed before a TPU (until stable)"
    sentence: str
    citations: tuple[str, ...]


def _answer_words(reason: Reason, q: Questionnaire) -> str:
    field, value = reason.field, reason.value
    if field is None or value is None:
        return "Default"
    try:
        label = q.by_field(field).label_of(value)
    except KeyError:
        label = value
    return f"{field.replace('_', ' ').capitalize()}: {label}"


def reason_lines(rec: Recommendation, q: Questionnaire | None = None) -> tuple[list[ReasonLine], list[ReasonLine]]:
    """The reasons for the verdict and those against it, in words (never a points ledger).

    Text, the REPL and Slack all show the two lists apart, so a factor against the verdict
    is never read as one of its reasons.
    """
    from bot.intake.questions import load_questionnaire

    q = q or load_questionnaire()
    out: dict[str, list[ReasonLine]] = {"for": [], "against": []}
    for reason in rec.reasons:
        out[reason.direction].append(ReasonLine(_answer_words(reason, q), reason.role or reason.effect,
                                                reason.sentence, tuple(reason.citations)))
    return out["for"], out["against"]


def render_flips(flips: list[Flip]) -> list[str]:
    """One line per field: ``custom kernels: some → GPU; critical → GPU``."""
    from knowledge.recommend.recommendation import VERDICT_LABELS

    by_field: dict[str, list[str]] = {}
    for flip in flips:
        by_field.setdefault(flip.field, []).append(f"{flip.value} → {VERDICT_LABELS[flip.recommendation]}")
    return [f"{field.replace('_', ' ')}: {'; '.join(changes)}" for field, changes in by_field.items()]


def _reason_block(title: str, rows: list[ReasonLine], limit: int) -> list[str]:
    lines = ["", title]
    for i, row in enumerate(rows[:limit], start=1):
        lines.append(f"  {i}. {row.answer} — {row.role}.")
        lines.append(f"     {row.sentence}")
        if row.citations:
            lines.append(f"     {'; '.join(row.citations)}")
    hidden = rows[limit:]
    if hidden:
        lines.append(f"  ... and {len(hidden)} more: " + "; ".join(f"{r.answer} ({r.role})" for r in hidden))
    return lines


def render_recommendation_text(rec: Recommendation, *, max_reasons: int = 6) -> str:
    """The whole recommendation as readable text (ends without a trailing newline)."""
    from knowledge.recommend.recommendation import VERDICT_LABELS

    verdict = VERDICT_LABELS[rec.recommendation]
    lines = [
        f"Recommendation: {verdict} [{rec.recommendation}]",
        f"Confidence: {rec.confidence:.2f}" + ("" if rec.confidence < 1.0 else " (no unknown answer could change it)"),
        f"TPU fit of the workload: {rec.fit}",
    ]
    if rec.confidence < 1.0:
        lines.append("If the unknown answers were filled in: "
                     + ", ".join(f"{VERDICT_LABELS[k]} {v:.0%}" for k, v in rec.scores.items() if v > 0))
    for why in dict.fromkeys(w for msgs in rec.blocked.values() for w in msgs):
        lines.append(f"Ruled out: TPU ({why})")

    for_rows, against_rows = reason_lines(rec)
    lines += _reason_block(f"Why {verdict}:", for_rows, max_reasons)
    if against_rows:
        lines += _reason_block("What argues against it:", against_rows, max_reasons)

    if rec.todo:
        lines += ["", "To do before moving to TPUs:"]
        lines += [f"  {i}. {step}" for i, step in enumerate(rec.todo, start=1)]
    elif rec.blockers and rec.recommendation == "gpu" and rec.fit != "low":
        lines += ["", "What stands between this team and a TPU:"]
        lines += [f"  - {b.text} (effort: {b.effort})" for b in rec.blockers]

    if rec.caveats:
        lines += ["", "Caveats:"]
        lines += [f"  - {caveat}" for caveat in rec.caveats]

    if rec.next_questions:
        lines += ["", "Worth answering next: " + ", ".join(f.replace("_", " ") for f in rec.next_questions[:3])]

    lines += ["", "What would change this:"]
    flips = render_flips(rec.flips)
    lines += [f"  - {line}" for line in flips] if flips else ["  - No single different answer would change it."]
    return "\n".join(lines)

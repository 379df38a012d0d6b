"""Plain-text rendering of a :class:`~knowledge.models.Recommendation`.

Plain text (no colour codes) so the same rendering works in a terminal, through a
pipe, in the REPL and in a log. It shows, in order: the recommendation and its
confidence, the scores and anything blocked, the reasons with their citation labels,
the caveats, and "What would change this" (the flips, grouped per field).
"""

from __future__ import annotations

from knowledge.models import Flip, Recommendation

__all__ = ["KIND_TITLES", "render_text", "render_flips"]

KIND_TITLES: dict[str, str] = {
    "gpu": "GPU",
    "tpu": "TPU",
    "gpu_then_tpu": "GPU now, then TPU (prototype on GPUs, plan the move once the model is stable)",
}


def render_flips(flips: list[Flip]) -> list[str]:
    """One line per field: ``custom_kernels: some → gpu; critical → gpu``."""
    by_field: dict[str, list[str]] = {}
    for flip in flips:
        by_field.setdefault(flip.field, []).append(f"{flip.value} → {flip.recommendation}")
    return [f"{field}: {'; '.join(changes)}" for field, changes in by_field.items()]


def render_text(rec: Recommendation, *, max_reasons: int = 6) -> str:
    """The whole recommendation as readable text (ends without a trailing newline)."""
    lines = [
        f"Recommendation: {KIND_TITLES.get(rec.recommendation, rec.recommendation)} [{rec.recommendation}]",
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

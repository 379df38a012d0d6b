"""Block Kit for a recommendation: the verdict, why and what argues against it (in words, cited), caveats, and what would change it.

Reasons, caveats and flips come from the scoring rules (our data), but they are still
escaped like any other text we did not write in this module. Long lists are packed into
sections of at most 3,000 characters, and the whole message is capped at 50 blocks.
"""

from __future__ import annotations

from slack_sdk.models.blocks import Block, DividerBlock, HeaderBlock, PlainTextObject

from bot.intake.questions import Questionnaire, load_questionnaire
from bot.plaintext import ReasonLine, reason_lines
from bot.slack.blocks import SlackMessage, cap_blocks, context, pack_lines, section
from bot.slack.mrkdwn import escape
from knowledge.recommend.profile import WorkloadProfile
from knowledge.recommend.recommendation import VERDICT_LABELS, Recommendation

__all__ = ["recommendation_message", "KIND_NAMES"]

#: The one label per verdict (defined in knowledge.recommend.recommendation).
KIND_NAMES = VERDICT_LABELS


def _pack(title: str, lines: list[str]) -> list[Block]:
    """A bold title then bullet lines, in as few ≤3,000-character sections as possible."""
    return [section(text) for text in pack_lines(lines, head=f"*{title}*")]


def _reason_line(row: ReasonLine) -> str:
    """``• *Cloud: Google Cloud*: ready for a TPU on this point`` then the cited sentence."""
    line = f"• *{escape(row.answer)}*: _{escape(row.role)}_\n      {escape(row.sentence)}"
    if row.citations:
        line += "\n      _" + escape("; ".join(row.citations)) + "_"
    return line


def _field_name(field: str) -> str:
    return field.replace("_", " ")


def recommendation_message(
    rec: Recommendation, profile: WorkloadProfile, questionnaire: Questionnaire | None = None
) -> SlackMessage:
    """The message sent to the person who filled in the intake modal."""
    q = questionnaire or load_questionnaire()
    verdict = KIND_NAMES.get(rec.recommendation, rec.recommendation)
    body: list[Block] = [HeaderBlock(text=PlainTextObject(text=f"Recommendation: {verdict}"))]
    summary = f"*Confidence:* {rec.confidence:.0%}" + (" (no unknown answer could change it)" if rec.confidence >= 1.0 else "")
    summary += f"\n*TPU fit of the workload:* {rec.fit}"
    if rec.confidence < 1.0:
        shares = " · ".join(f"{escape(KIND_NAMES.get(k, k))} {v:.0%}" for k, v in rec.scores.items() if v > 0)
        summary += f"\n*If the unknown answers were filled in:* {shares}"
    body.append(section(summary))

    known = profile.known()
    answered = [f"{escape(_field_name(f))}: {escape(q.by_field(f).label_of(v))}" for f, v in known.items()]
    unknown = profile.unknown_fields()
    lines = ["*Your answers:* " + ("; ".join(answered) if answered else "none (everything was “Not sure”)")]
    if unknown:
        lines.append(f"_Not sure about: {escape(', '.join(_field_name(f) for f in unknown))}_")
    body.extend(context(lines))

    for_rows, against_rows = reason_lines(rec, q)
    if for_rows or against_rows:
        body.append(DividerBlock())
    for title, rows in ((f"Why {verdict}", for_rows), ("What argues against it", against_rows)):
        if rows:
            body.extend(_pack(escape(title), [_reason_line(row) for row in rows]))
    if rec.todo:
        body.extend(_pack("To do before moving to TPUs", [f"{i}. {escape(step)}" for i, step in enumerate(rec.todo, 1)]))
    blocked = [f"• {escape(KIND_NAMES.get(k, k))}: {escape(msg)}" for k, msgs in rec.blocked.items() for msg in msgs]
    if blocked:
        body.extend(_pack("Ruled out", blocked))
    if rec.caveats:
        body.extend(_pack("Caveats", [f"• {escape(c)}" for c in rec.caveats]))
    if rec.flips:
        flips = [
            f"• If *{escape(_field_name(f.field))}* were *{escape(q.by_field(f.field).label_of(f.value))}*: "
            f"{escape(KIND_NAMES.get(f.recommendation, f.recommendation))}"
            for f in rec.flips
        ]
        body.extend(_pack("What would change this", flips))
    else:
        body.append(section("*What would change this*\nNo single answer would change this recommendation."))

    labels: list[str] = []
    for reason in rec.reasons:
        for label in reason.citations:
            if label not in labels:
                labels.append(label)
    tail: list[Block] = []
    if labels:
        tail.extend(context(["*Sources*", *(f"• {escape(label)}" for label in labels)], block_id="hwbot_sources"))
    blocks = cap_blocks(body, tail, "_(Cut to fit one Slack message.)_")
    fallback = f"Recommendation: {verdict} (confidence {rec.confidence:.0%})"
    return SlackMessage(text=escape(fallback), blocks=[b.to_dict() for b in blocks])

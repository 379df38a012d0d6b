"""``hwbot feedback``: the questions hwbot could not answer well, with the reasons people gave.

Two lists, both FAQ gaps: questions the engine *declined* (the notes do not cover them),
and answers people voted *not helpful*, with the reason picked in Slack's modal (wrong,
not covered, outdated, other) and any comment. Questions are grouped (case and spacing
ignored) and counted, most frequent first. ``--since DATE`` keeps feedback from that
day on; ``--json`` prints one object instead of markdown.

It reads the same store the Slack app writes: ``HWBOT_FEEDBACK_DB``, or Redis when
``HWBOT_REDIS_URL`` is set.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import date
from typing import Any

import click

from bot.slack.feedback import REASONS, FeedbackRecord, FeedbackStore, StoredAnswer
from bot.state import open_state_store
from common.errors import UsageError
from common.settings import HwbotSettings

__all__ = ["run_feedback", "feedback_report", "render_markdown"]


def _parse_since(since: str | None) -> str:
    if not since:
        return ""
    try:
        return date.fromisoformat(since.strip()).isoformat()
    except ValueError:
        raise UsageError(f"--since must be a date like 2026-01-31, got {since!r}") from None


def _group(question: str) -> str:
    return " ".join(question.lower().split())


def feedback_report(answers: list[StoredAnswer], votes: list[FeedbackRecord], since: str = "") -> dict[str, Any]:
    """The report as data (the ``--json`` shape)."""
    declined: dict[str, dict[str, Any]] = {}
    for stored in answers:
        if not stored.declined or stored.created_at[:10] < since:
            continue
        entry = declined.setdefault(_group(stored.question), {"question": stored.question, "count": 0, "last_at": ""})
        entry["count"] += 1
        entry["last_at"] = max(entry["last_at"], stored.created_at)
    down: dict[str, dict[str, Any]] = {}
    for vote in votes:
        if vote.helpful or vote.created_at[:10] < since:
            continue
        entry = down.setdefault(
            _group(vote.question),
            {"question": vote.question, "declined": vote.declined, "answer": vote.answer, "citations": vote.citations,
             "votes": 0, "reasons": Counter(), "comments": [], "last_at": ""},
        )
        entry["votes"] += 1
        entry["reasons"][vote.reason or "unspecified"] += 1
        if vote.comment:
            entry["comments"].append(vote.comment)
        entry["last_at"] = max(entry["last_at"], vote.created_at)
    down_list = sorted(down.values(), key=lambda e: (-e["votes"], e["question"]))
    for entry in down_list:
        entry["reasons"] = dict(entry["reasons"].most_common())
    return {
        "since": since or None,
        "declined": sorted(declined.values(), key=lambda e: (-e["count"], e["question"])),
        "down_voted": down_list,
    }


def _quote(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def render_markdown(report: dict[str, Any]) -> str:
    lines = ["# hwbot feedback: the FAQ's gaps", ""]
    if report["since"]:
        lines += [f"Since {report['since']}.", ""]
    lines += ["## Declined (the notes do not cover them)", ""]
    lines += [f"- {_quote(e['question'])} ({e['count']}×, last {e['last_at'][:10]})" for e in report["declined"]] or ["None."]
    lines += ["", "## Voted not helpful", ""]
    if not report["down_voted"]:
        lines.append("None.")
    for entry in report["down_voted"]:
        reasons = ", ".join(f"{REASONS.get(r, r).lower()} ×{n}" for r, n in entry["reasons"].items())
        lines.append(f"- **{_quote(entry['question'])}** ({entry['votes']} vote{'s' * (entry['votes'] > 1)}: {reasons})")
        lines.extend(f"  - “{_quote(c)}”" for c in entry["comments"])
    return "\n".join(lines) + "\n"


def run_feedback(settings: HwbotSettings, *, since: str | None, as_json: bool) -> None:
    cutoff = _parse_since(since)
    store = FeedbackStore(open_state_store(settings) if settings.redis_url else settings.feedback_db)
    report = feedback_report(store.answers(), store.votes(), cutoff)
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False))
    else:
        click.echo(render_markdown(report), nl=False)

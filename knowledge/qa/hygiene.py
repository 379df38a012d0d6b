"""Cleaning a user's question before anything else sees it.

Questions arrive from Slack, pipes and files: they may hold control characters,
terminal escapes, megabytes of pasted logs, or nothing at all. The rules are the same
for every front end, so they live here once.
"""

from __future__ import annotations

import re
import unicodedata

from common.errors import InputError

__all__ = ["MAX_QUESTION_CHARS", "clean_question", "EmptyQuestionError"]

MAX_QUESTION_CHARS = 2000
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-_]")


class EmptyQuestionError(InputError):
    """Nothing left to answer after cleaning."""


#: A quoted or bulleted line: "> disk usage on /scratch at 71%", "- node rebooted", "• on AWS".
_MARKED_LINE = re.compile(r"(?:>|[-*\u2022]\s)")


def _lines_joined(text: str) -> str:
    """Whitespace collapsed, keeping a line break only where it ends a sentence that has no
    punctuation: at a blank line (a new paragraph) and around a quoted or bulleted line, as
    pasted logs and lists are. A line break inside a sentence (text wrapped by hand) becomes a
    space. The kept breaks are what :mod:`knowledge.qa.asks` splits sentences at."""
    out: list[str] = []
    joined = False  # may the next line continue the last one?
    for raw in text.split("\n"):
        line = " ".join(raw.split())
        if not line:
            joined = False
        elif out and joined and not _MARKED_LINE.match(line):
            out[-1] += " " + line
        else:
            out.append(line)
            joined = not _MARKED_LINE.match(line)
    return "\n".join(out)


def clean_question(raw: str, max_chars: int = MAX_QUESTION_CHARS) -> tuple[str, list[str]]:
    """Return the cleaned question and notices for the user.

    Control characters and ANSI escapes are stripped, whitespace collapsed (line breaks kept), and text
    over ``max_chars`` (``HWBOT_MAX_QUESTION_CHARS``, default :data:`MAX_QUESTION_CHARS`)
    truncated (with a notice). An empty result raises
    :class:`EmptyQuestionError` with a gentle prompt.
    """
    notices: list[str] = []
    text = _ANSI.sub(" ", raw)
    text = "".join(ch if unicodedata.category(ch)[0] != "C" or ch in "\t\n" else " " for ch in text)
    text = _lines_joined(text)
    if not text:
        raise EmptyQuestionError(
            "the question is empty: type a question about GPUs and TPUs, e.g. 'Why would a TPU sit idle?'"
        )
    if len(text) > max_chars:
        notices.append(f"Your question was {len(text)} characters; only the first {max_chars} were used.")
        # a question pasted after a long log is kept: the log is what gets cut
        tail = re.search(r"[^.?!]{3,300}\?\s*$", text[-300:])
        asked = tail.group(0).strip() if tail else ""
        text = text[: max_chars - len(asked) - 1].rstrip() + " " + asked if asked else text[:max_chars].rstrip()
    return text, notices

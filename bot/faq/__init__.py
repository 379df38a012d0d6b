"""Batch FAQ answering over docs: question extraction and the markdown page writer.
"""

from bot.faq.extract import (
    MAX_DOCS_BYTES,
    FoundQuestion,
    extract_questions,
    normalize_question,
    read_docs,
)
from bot.faq.page import (
    NOT_COVERED,
    FaqEntry,
    render_markdown,
)

__all__ = [
    "FoundQuestion",
    "read_docs",
    "extract_questions",
    "normalize_question",
    "MAX_DOCS_BYTES",
    "FaqEntry",
    "render_markdown",
    "NOT_COVERED",
]

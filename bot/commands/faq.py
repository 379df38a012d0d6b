"""``hwbot faq FILE [--out FILE] [--json]``: answer every question of a docs file.

The questions are found by :mod:`bot.faq.extract` and answered, in document order and
each once, by the shared engine (``bot.engines.get_engine()``), exactly as ``hwbot
ask`` would answer them: curated FAQ entries first, then the hybrid path.

Output:
- ``--json``: one ``ask --batch`` contract object per question on stdout, written as
  each is answered (declined questions included, with no citations);
- ``--out PAGE``: a markdown FAQ page (:mod:`bot.faq.page`), declined questions
  listed under "Not covered by the notes"; a one-line summary goes to stderr;
- neither: the markdown page on stdout. ``--json`` and ``--out`` may be combined.

A progress bar shows on stderr for long files when stderr is a terminal. No URL in
the file is fetched: URLs are stripped from questions before anything sees them.

Exit codes (one line on stderr, never a traceback):
- 0: done, even if some questions were declined (they are listed, not errors);
- 2: bad input, before the model loads: FILE missing, a directory, unreadable,
  binary or not UTF-8, too large, empty, or with no questions; ``--out`` naming a
  directory, a missing directory's file, or FILE itself;
- 3: the index is missing, corrupt or from another model (see ``hwbot index``);
- 1: the FAQ page could not be written (e.g. disk full, permission denied).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from bot.faq.extract import FoundQuestion, extract_questions, read_docs
from common.errors import HwbotError, InputError, UsageError
from common.settings import HwbotSettings

__all__ = ["run_faq", "collect_questions", "PROGRESS_MIN_QUESTIONS"]

#: Fewer questions than this are answered in a blink; a bar would only flicker.
PROGRESS_MIN_QUESTIONS = 5


def collect_questions(file: Path, max_bytes: int | None = None) -> tuple[list[FoundQuestion], int]:
    """The distinct questions of a docs file (and the repeats skipped), or an InputError."""
    questions, repeats = extract_questions(read_docs(file, max_bytes))
    if not questions:
        raise InputError(
            f"{file}: no questions found (looked for headings, list items and lines ending in '?', outside code)"
        )
    return questions, repeats


def _check_out(out: Path, file: Path) -> None:
    if out.is_dir():
        raise UsageError(f"--out {out}: is a directory, expected a file name for the FAQ page")
    if not out.parent.is_dir():
        raise UsageError(f"--out {out}: directory {out.parent} does not exist")
    if out.exists() and out.resolve() == file.resolve():
        raise UsageError(f"--out {out}: would overwrite the docs file being read")


def _write_atomically(out: Path, text: str) -> None:
    """Write the page in full or not at all: a reader never sees half a page."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(tmp, out)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise HwbotError(f"cannot write {out}: {exc.strerror or exc}") from None


def _answer_all(settings: HwbotSettings, questions: list[FoundQuestion], *, as_json: bool):
    from tqdm import tqdm

    from bot.engines import get_engine
    from bot.faq.page import FaqEntry
    from knowledge.qa.abstain import declined_answer

    engine = get_engine(settings)
    show = sys.stderr.isatty() and len(questions) >= PROGRESS_MIN_QUESTIONS
    entries: list[FaqEntry] = []
    answers = engine.ask_many(found.text for found in questions)  # encoded in batches
    for found in tqdm(questions, desc="Answering", unit="question", file=sys.stderr, disable=not show, leave=False):
        # None (empty after hygiene) cannot come from the extractor, but never crash a batch on it
        answer = next(answers) or declined_answer(found.text)
        entries.append(FaqEntry(found, answer))
        if as_json:
            sys.stdout.write(json.dumps(answer.to_contract(), ensure_ascii=False) + "\n")
            sys.stdout.flush()
    return entries


def run_faq(settings: HwbotSettings, file: Path, out: Path | None = None, as_json: bool = False) -> None:
    """Find, answer and write out the questions of ``file`` (see the module docstring)."""
    # every input check runs before the model loads
    questions, repeats = collect_questions(file, settings.max_docs_bytes)
    if out is not None:
        _check_out(out, file)
    entries = _answer_all(settings, questions, as_json=as_json)
    if out is None and as_json:
        return
    from bot.faq.page import render_markdown

    page = render_markdown(entries, docs_name=file.name)
    if out is None:
        sys.stdout.write(page)
        return
    _write_atomically(out, page)
    declined = sum(1 for e in entries if e.answer.declined)
    skipped = f"; {repeats} repeated question{'s' * (repeats != 1)} answered once" if repeats else ""
    print(
        f"Wrote {out}: {len(entries) - declined} answered, {declined} not covered by the notes{skipped}.",
        file=sys.stderr,
    )

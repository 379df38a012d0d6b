"""``hwbot ask``: one question, or a batch file of one question per line.

A batch file is validated whole (readable, UTF-8, not empty, not too big) before any
question is answered, so a bad file produces one error line and no partial output.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from common.errors import InputError, UsageError
from common.settings import HwbotSettings
from common.textio import read_text_file

__all__ = ["run_ask", "read_batch", "MAX_BATCH_BYTES"]

MAX_BATCH_BYTES = 10_000_000


def read_batch(path: Path, max_bytes: int = MAX_BATCH_BYTES) -> list[str]:
    """Questions from a file, one per non-blank line, in order."""
    text = read_text_file(path, expected="a UTF-8 text file of questions", max_bytes=max_bytes)
    questions = [line.strip() for line in text.splitlines() if line.strip()]
    if not questions:
        raise InputError(f"{path}: no questions (the file is empty)")
    return questions


def run_ask(settings: HwbotSettings, question: str | None, *, as_json: bool, batch: Path | None) -> None:
    from knowledge.index import prefetch_encoder

    prefetch_encoder(settings.index_dir)  # the ONNX session loads in the background while the rest imports
    from knowledge.qa.hygiene import clean_question

    if batch is not None and question:
        raise UsageError("give either a QUESTION or --batch FILE, not both")
    if batch is None:
        if question is None:
            raise UsageError("missing QUESTION")
        clean_question(question, settings.max_question_chars)  # an empty question fails here, before the model loads
        from bot.advice import advise
        from bot.engines import get_engine
        from bot.extractor import lazy_extractor
        from bot.plaintext import render_answer_text

        # the same extractor as `recommend --text`, opened only if the question describes the team
        advice = advise(get_engine(settings), question, extract=lazy_extractor(settings))
        if as_json:
            print(json.dumps(advice.to_contract(), ensure_ascii=False))
        else:
            print(render_answer_text(advice.answer))
        return
    if not as_json:
        raise UsageError("--batch writes JSON lines: add --json")
    questions = read_batch(batch, settings.max_batch_bytes)
    from bot.advice import Advice, advise_answer
    from bot.engines import get_engine
    from bot.extractor import lazy_extractor
    from knowledge.qa.abstain import declined_answer

    engine = get_engine(settings)
    extract = lazy_extractor(settings)
    out = sys.stdout
    for result in engine.ask_many(questions):  # questions are encoded in batches, answers still stream
        # None: a line of only control characters, declined and kept in place
        advice = advise_answer(result, result.question, extract=extract) if result is not None else Advice(declined_answer(""))
        obj = advice.to_contract()
        out.write(json.dumps(obj, ensure_ascii=False) + "\n")
        out.flush()

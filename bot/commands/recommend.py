"""``hwbot recommend``: from a profile file, or from the intake run in the terminal.

With ``--profile FILE`` the file is validated (any problem is one line and exit 2) and
scored; ``--json`` prints exactly the contract object. Without it the intake runs on
stdin: interactively with resume (the dialog is stored under the ``terminal`` key, so
closing the terminal mid-way loses nothing), or, when stdin is piped, as a one-shot
dialog that never resumes or leaves state behind.

The loop itself is :mod:`bot.intake.session`, shared with the REPL's ``/recommend``.
Nothing here imports torch.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from bot.plaintext import render_recommendation_text
from common.errors import EXIT_FAILURE, InputError
from common.settings import HwbotSettings
from knowledge.recommend.profile import load_profile
from knowledge.recommend.recommendation import Recommendation
from knowledge.recommend.recommender import recommend

__all__ = ["run_recommend", "run_recommend_text", "emit"]


def emit(rec: Recommendation, as_json: bool, out: TextIO | None = None) -> None:
    """Print a recommendation as the contract JSON object or as text."""
    out = out or sys.stdout
    if as_json:
        out.write(json.dumps(rec.to_contract(), ensure_ascii=False) + "\n")
    else:
        out.write(render_recommendation_text(rec) + "\n")
    out.flush()


def _reader(stream: TextIO, interactive: bool) -> Callable[[str], str | None]:
    """A line reader for the terminal; prompts go to ``stream`` so stdout can stay pure JSON."""

    def read(prompt: str) -> str | None:
        if interactive and stream is sys.stdout:
            try:
                return input(prompt)
            except EOFError:  # Ctrl-D: end the prompt line so the next message starts clean
                stream.write("\n")
                return None
        stream.write(prompt)
        stream.flush()
        line = sys.stdin.readline()
        if not interactive:
            stream.write("\n" if not line else line if line.endswith("\n") else line + "\n")
        return line.rstrip("\r\n") if line else None

    return read


def run_recommend_text(text: str, *, settings: HwbotSettings, as_json: bool = False) -> None:
    """``recommend --text``: the profile read from the user's own words, then the same engine.

    The words are read by the shared reading step with the rules and then the learned clause
    heads for what the rules left open (:mod:`bot.extractor`; the rules alone, with a one-line
    notice, when the index's encoder or the heads are unusable). The JSON adds ``profile``
    (stated and implied answers), ``evidence`` (the words each stated one came from),
    ``field_confidence`` (how sure each stated one is), ``implied`` (``{field: {"value",
    "because"}}``: answers the stated ones imply, never over them), ``confirm`` (what was
    ambiguous or contradictory and is asked, never guessed) and ``notes`` (how the message
    was read: cut, not English, ...). The text view says all of it before the verdict.
    """
    from bot.extractor import understand

    if not text.strip():
        raise InputError("--text is empty: describe your team, model, cloud and scale")
    reading = understand(text, settings)
    profile = reading.profile()
    rec = recommend(profile)
    if as_json:
        out = rec.to_contract()
        out["profile"] = profile.known()
        out["evidence"] = {f: e.evidence for f, e in reading.stated.items()}
        out["field_confidence"] = {f: e.confidence for f, e in reading.stated.items()}
        out["confirm"] = [c.question for c in reading.confirmations]
        out.update(reading.to_json())
        sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
        return
    for note in reading.notes:
        sys.stdout.write(f"Note: {note}\n")
    if not reading.read:
        return
    understood = ", ".join(f"{f} = {e.value} (\"{e.evidence}\")" for f, e in reading.stated.items())
    sys.stdout.write(f"Understood: {understood or 'nothing about your setup yet'}\n")
    if reading.implied:
        implied = "; ".join(f"{f} = {i.value} ({i.because})" for f, i in reading.implied.items())
        sys.stdout.write(f"Implied: {implied}\n")
    for confirm in reading.confirmations:
        sys.stdout.write(f"To confirm: {confirm.question}\n")
    sys.stdout.write("\n")
    emit(rec, False)


def run_recommend(settings: HwbotSettings, profile: Path | None, as_json: bool = False) -> None:
    """The ``recommend`` command."""
    if profile is not None:
        emit(recommend(load_profile(profile, max_bytes=settings.max_profile_bytes)), as_json)
        return
    interactive = sys.stdin.isatty()
    talk = sys.stderr if as_json else sys.stdout

    def write(text: str) -> None:
        talk.write(text + "\n")
        talk.flush()

    from bot.intake.persistence import IntakeStore
    from bot.intake.session import TERMINAL_KEY, intake_session

    key = TERMINAL_KEY if interactive else f"pipe-{os.getpid()}"
    result = intake_session(_reader(talk, interactive), write, key, store=IntakeStore.open(settings), resume=interactive)
    if result.outcome == "done" and result.recommendation is not None:
        if not as_json:
            write("")
        emit(result.recommendation, as_json)
        return
    if result.outcome == "eof" and not interactive:
        raise InputError(
            f"input ended after {result.answered} intake answers, before the intake finished "
            f"(it asks at most {result.total}); give one answer per line, or use --profile FILE"
        )
    sys.exit(EXIT_FAILURE)

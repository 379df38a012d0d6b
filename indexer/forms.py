"""Question forms: the questions each note sentence answers, kept as data beside the notes.

``<sources>/forms/<source-stem>.toml`` holds, per sentence of that source, several ways a
user might ask for it (terse, formal, non-native, with a typo, in the user's words rather
than the note's). A question matched against these forms finds the sentence that answers
its *ask*, where matching against the sentence itself finds sentences on the same *topic*.

The forms are embedded at index time (``hwbot index``), keyed by the sha256 of their text
like every other vector, and stored in the index generation (``forms.jsonl`` +
``form_vectors.npy``), so a query never encodes them. Their combined hash is in the
manifest: editing a forms file makes the index stale.
"""

from __future__ import annotations

import hashlib
import tomllib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from common.errors import SourceError
from common.validation import one_line_errors

__all__ = ["FORMS_DIR_NAME", "SentenceForms", "FormsFile", "StoredSentenceForms", "read_forms", "forms_sha256"]

FORMS_DIR_NAME = "forms"


class SentenceForms(BaseModel):
    """One note sentence (its exact text), the questions it answers, and whether it may lead an answer."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str = Field(min_length=1)
    forms: list[str] = []
    #: False for a sentence that cannot open an answer (it leans on its predecessor).
    lead: bool = True


class FormsFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    sentence: list[SentenceForms] = []


class StoredSentenceForms(BaseModel):
    """One line of ``forms.jsonl``: a sentence, its lead flag and its forms' rows in ``form_vectors.npy``."""

    sentence: str
    lead: bool = True
    forms: list[str]
    row: int  # first row of this sentence's forms in form_vectors.npy


def _files(sources_dir: Path) -> list[Path]:
    folder = sources_dir / FORMS_DIR_NAME
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix == ".toml")


def forms_sha256(sources_dir: Path) -> str:
    """One hash over every forms file (name and bytes); "" when there are none."""
    files = _files(sources_dir)
    if not files:
        return ""
    digest = hashlib.sha256()
    for p in files:
        digest.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    return digest.hexdigest()


def read_forms(sources_dir: Path) -> dict[str, list[SentenceForms]]:
    """file stem → its validated sentences; a malformed file raises a one-line SourceError."""
    out: dict[str, list[SentenceForms]] = {}
    for path in _files(sources_dir):
        try:
            data = FormsFile(**tomllib.loads(path.read_text(encoding="utf-8")))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise SourceError(f"{path.name}: not valid TOML ({exc})") from None
        except ValidationError as exc:
            raise SourceError(f"{path.name}: {one_line_errors(exc)}") from None
        out[path.stem] = list(data.sentence)
    return out

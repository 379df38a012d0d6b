"""The intake questions, loaded from ``bot/questions.toml`` and checked against the profile schema.

The questions are data so that every front end (terminal intake, REPL ``/recommend``,
the Slack modal) asks the same thing, and so that a wording change is a one-line edit.
The order they are asked in is not here: it is a decision about the verdict, made by
:mod:`knowledge.recommend.questioning`. The file is validated at load against
``FIELD_VALUES``: a question for an unknown field, an option outside the contract, a
missing value or an ambiguous synonym is a :class:`~common.errors.QuestionnaireError` (it
is shipped data, like the scoring rules), never a silent mis-parse in a live dialog.
"""

from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from common.errors import QuestionnaireError
from common.validation import one_line_errors
from knowledge.recommend.profile import FIELD_VALUES, UNKNOWN

__all__ = [
    "QUESTIONS_FILE",
    "AnswerOption",
    "Question",
    "Commands",
    "Replies",
    "Questionnaire",
    "load_questionnaire",
    "normalize_answer",
    "COMMAND_NAMES",
]

QUESTIONS_FILE = Path(__file__).resolve().parent / "questions.toml"

#: The dialog commands, in the order they are matched.
COMMAND_NAMES = ("skip", "back", "restart", "cancel", "help")

_FOLD = re.compile(r"[^a-z0-9.?]+")
_NUMBER = re.compile(r"^(\d{1,3})[.)]?$")
_VERSION_TAIL = re.compile(r"(?:\s+v?\d+(?:\.\d+)*)+$")


def normalize_answer(text: str) -> str:
    """Fold an answer for matching: lower case, punctuation and underscores to single spaces.

    Dots survive so a version such as ``2.1`` stays one token, and ``?`` survives because
    a bare ``?`` means "not sure".
    """
    folded = _FOLD.sub(" ", text.lower().replace("'", ""))
    return " ".join(folded.split()).strip(" .")


class AnswerOption(BaseModel):
    """One allowed answer: the contract value, what a person sees, and what a person may type."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    value: str
    label: str = Field(min_length=1)
    synonyms: tuple[str, ...] = ()


class Question(BaseModel):
    """One intake question for one profile field."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    field: str
    prompt: str = Field(min_length=1)
    help: str = Field(min_length=1)
    options: tuple[AnswerOption, ...] = Field(min_length=1)

    def values(self) -> tuple[str, ...]:
        return tuple(o.value for o in self.options)

    def label_of(self, value: str) -> str:
        """The human label of a value (``unknown`` included), for summaries."""
        for option in self.options:
            if option.value == value:
                return option.label
        return "Not sure" if value == UNKNOWN else value

    def match(self, text: str) -> str | None:
        """The value an answer means, or None: by option number, value, label or synonym.

        A trailing version number is ignored as a last resort, so "PyTorch 2.1" and
        "TensorFlow 2.15" are understood without listing every release.
        """
        number = _NUMBER.match(text.strip())
        if number:
            index = int(number.group(1)) - 1
            return self.options[index].value if 0 <= index < len(self.options) else None
        key = normalize_answer(text)
        if not key or key.isdigit():  # e.g. "-1" folds to "1": not a valid option number
            return None
        table = self._lookup()
        if key in table:
            return table[key]
        stripped = _VERSION_TAIL.sub("", key)
        return table.get(stripped) if stripped and stripped != key else None

    def _lookup(self) -> dict[str, str]:
        return _lookup_table(self)


@lru_cache(maxsize=64)
def _lookup_table(question: Question) -> dict[str, str]:
    table: dict[str, str] = {}
    for option in question.options:
        for word in (option.value, option.label, *option.synonyms):
            table.setdefault(normalize_answer(word), option.value)
    return table


class Commands(BaseModel):
    """Words that steer the dialog instead of answering it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    skip: tuple[str, ...] = Field(min_length=1)
    back: tuple[str, ...] = Field(min_length=1)
    restart: tuple[str, ...] = Field(min_length=1)
    cancel: tuple[str, ...] = Field(min_length=1)
    help: tuple[str, ...] = Field(min_length=1)

    def command_of(self, text: str) -> str | None:
        """``"skip"``, ``"back"``, ``"restart"``, ``"cancel"``, ``"help"`` or None."""
        key = normalize_answer(text)
        for name in COMMAND_NAMES:
            if key in {normalize_answer(w) for w in getattr(self, name)}:
                return name
        return None


class Replies(BaseModel):
    """Words for yes and no, matched only while the dialog has a yes/no question open."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    yes: tuple[str, ...] = Field(min_length=1)
    no: tuple[str, ...] = Field(min_length=1)

    def reply_of(self, text: str) -> bool | None:
        """True for yes, False for no, None for anything else."""
        key = normalize_answer(text)
        if key in {normalize_answer(w) for w in self.yes}:
            return True
        if key in {normalize_answer(w) for w in self.no}:
            return False
        return None


class UnknownChoice(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    label: str = Field(min_length=1)
    help: str = Field(min_length=1)


class Questionnaire(BaseModel):
    """The whole intake: the questions (in contract order), the command words and yes/no replies."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    unknown: UnknownChoice
    commands: Commands
    replies: Replies
    questions: tuple[Question, ...] = Field(alias="question", min_length=1)

    @field_validator("questions")
    @classmethod
    def _fields_unique(cls, questions: tuple[Question, ...]) -> tuple[Question, ...]:
        seen = [q.field for q in questions]
        dupes = sorted({f for f in seen if seen.count(f) > 1})
        if dupes:
            raise ValueError(f"fields asked twice: {', '.join(dupes)}")
        return questions

    def by_field(self, field: str) -> Question:
        for question in self.questions:
            if question.field == field:
                return question
        raise KeyError(field)

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(q.field for q in self.questions)


def _check_against_schema(q: Questionnaire, origin: str) -> None:
    """Every field asked once, exactly its contract values offered, no ambiguous words."""
    missing = [f for f in FIELD_VALUES if f not in q.fields]
    if missing:
        raise QuestionnaireError(f"{origin}: no question for field(s) {', '.join(missing)}")
    command_of: dict[str, str] = {}
    for name in COMMAND_NAMES:
        for word in getattr(q.commands, name):
            key = normalize_answer(word)
            if not key or key.isdigit():
                raise QuestionnaireError(f"{origin}: command word {word!r} is empty or a bare number")
            if command_of.setdefault(key, name) != name:
                raise QuestionnaireError(f"{origin}: command word {word!r} means both {command_of[key]!r} and {name!r}")
    command_words = set(command_of)
    reply_of: dict[str, str] = {}
    for name in ("yes", "no"):
        for word in getattr(q.replies, name):
            key = normalize_answer(word)
            if not key or key.isdigit() or key in command_words:
                raise QuestionnaireError(f"{origin}: reply word {word!r} is empty, a bare number or a dialog command")
            if reply_of.setdefault(key, name) != name:
                raise QuestionnaireError(f"{origin}: reply word {word!r} means both yes and no")
    for question in q.questions:
        where = f"{origin}: question {question.field!r}"
        if question.field not in FIELD_VALUES:
            raise QuestionnaireError(f"{where}: unknown field; allowed fields: {', '.join(FIELD_VALUES)}")
        allowed = [v for v in FIELD_VALUES[question.field] if v != UNKNOWN]
        if sorted(question.values()) != sorted(allowed) or len(set(question.values())) != len(allowed):
            raise QuestionnaireError(
                f"{where}: options {', '.join(question.values())} must be exactly {', '.join(allowed)}"
            )
        owner: dict[str, str] = {}
        for option in question.options:
            for word in (option.value, option.label, *option.synonyms):
                key = normalize_answer(word)
                if not key or key.isdigit():
                    raise QuestionnaireError(f"{where}: synonym {word!r} is empty or a bare number (numbers pick options)")
                if key in command_words:
                    raise QuestionnaireError(f"{where}: synonym {word!r} is also a dialog command")
                if owner.setdefault(key, option.value) != option.value:
                    raise QuestionnaireError(
                        f"{where}: {word!r} is ambiguous: it means both {owner[key]!r} and {option.value!r}"
                    )


def parse_questions(text: str, origin: str = "questions.toml") -> Questionnaire:
    """Parse and validate questions TOML text (used by :func:`load_questionnaire` and by tests)."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise QuestionnaireError(f"{origin}: invalid TOML: {exc}") from None
    try:
        questionnaire = Questionnaire.model_validate(raw)
    except ValidationError as exc:
        raise QuestionnaireError(f"{origin}: {one_line_errors(exc)}") from None
    _check_against_schema(questionnaire, origin)
    return questionnaire


@lru_cache(maxsize=4)
def load_questionnaire(path: Path = QUESTIONS_FILE) -> Questionnaire:
    """The shipped questionnaire, parsed once per process."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise QuestionnaireError(f"{path}: cannot read questions file: {exc.strerror}") from None
    return parse_questions(text, origin=path.name)

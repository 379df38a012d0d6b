"""The labelled clauses and messages the extractor learns from, validated, and their fixed split.

``data/clauses_*.jsonl`` hold one clause a line, written and labelled by people who never saw
the extractor (the writers' brief: ``data/clauses_spec.md``): the fields the clause
states about the writer's own team now (``labels``), a ``modifier`` when it names a field
without stating it (negation, hedge, plan, past, third party, question), and the fields it
talks about (``mentions``). No clause is labelled by running the extractor on it.

The split is by a hash of the id, so it never moves when lines are added: ``train`` fits the
tuned layers and the heads, ``validation`` chooses each field's thresholds.

Labelled whole messages (:data:`MESSAGE_FILES`: the rules' phrasings, messages written for the
extractor, fresh batches after their first measurement) are items too, split the same way:
they carry no modifier label, so they train the field heads only, and the validation split's
messages are read whole when thresholds are chosen.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from knowledge.recommend.profile import FIELD_VALUES, is_answer

__all__ = [
    "CLAUSE_FILES", "DATA_DIR", "MESSAGE_FILES", "MODIFIERS", "NOT_STATED", "GATING_MODIFIERS", "THRESHOLD_FILES", "TRAINING_FILES", "LabelledClause", "Part",
    "load_clauses", "load_messages", "part_of", "data_sha256",
]

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
CLAUSE_FILES: tuple[Path, ...] = tuple(sorted(DATA_DIR.glob("clauses_*.jsonl")))
_EVAL_DATA = DATA_DIR.parent.parent / "evaluation" / "data"
#: Labelled whole messages (``id``, ``text``, ``expect``): the rules' own phrasings, messages
#: written for the extractor, and fresh batches once first measured (named one by one: a batch
#: joins when its measurement is recorded and the heads are retrained, never by being copied in).
MESSAGE_FILES: tuple[Path, ...] = (
    _EVAL_DATA / "phrasings.jsonl", _EVAL_DATA / "phrasings_late.jsonl", _EVAL_DATA / "phrasings_fresh.jsonl",
    *sorted(DATA_DIR.glob("messages_*.jsonl")),
    *(_EVAL_DATA / "measured" / f"fm{n}.jsonl" for n in (6, 7, 8, 9, 10, 11, 13, 14, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31)),
)
#: Fresh batches measured once and not trained on, whose whole messages (read as users send them)
#: choose how sure a head must be before it sets a field rather than asking (:mod:`.train`). They
#: are outside writers' messages, which the validation split (a hash slice of the training
#: files) holds few of. Named one by one, like :data:`MESSAGE_FILES`.
THRESHOLD_FILES: tuple[Path, ...] = tuple(
    _EVAL_DATA / "measured" / f"fm{n}.jsonl" for n in (32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77)
)
#: Everything the extractor learns from: the weights' manifest records one hash over these files.
TRAINING_FILES: tuple[Path, ...] = CLAUSE_FILES + MESSAGE_FILES + THRESHOLD_FILES
#: Each field head's first class: "this clause does not say it". Not "none", which is a value
#: (custom_kernels = none): with both spelled "none", every clause labelled "no custom kernels"
#: was trained as not stating the field, and the head never learned to read it (format 2).
NOT_STATED = "not_stated"
#: "none" is the modifier head's class for a plain statement.
MODIFIERS: tuple[str, ...] = ("none", "negation", "hedge", "plan", "past", "third_party", "question")
#: The modifiers that keep a clause from setting a field: its gate. Negation is not one of them.
#: A negated clause states a value in 270 of the 280 labelled clauses that mention a field
#: ("nobody here knows CUDA" -> neither, "the model doesn't change much" -> rarely, "we're not on
#: GCP, it's AWS" -> another cloud), so each field's head learns what the negation says; gating it
#: threw those readings away (the gate fired on "doesn't": with the weights of c9e5f17, leaving
#: negation out of the gate read 51 more fields of the measured message batches right, 4 more wrong).
GATING_MODIFIERS: tuple[str, ...] = ("hedge", "plan", "past", "third_party", "question")

Part = Literal["train", "validation"]


class LabelledClause(BaseModel):
    """One labelled clause. Labels say what the words state, never what any extractor does."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    text: str = Field(min_length=1)
    labels: dict[str, str] = {}
    modifier: Literal["negation", "hedge", "plan", "past", "third_party", "question"] | None = None
    mentions: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _labels_are_profile_answers(self) -> "LabelledClause":
        for name, value in self.labels.items():
            if name not in FIELD_VALUES or value not in FIELD_VALUES[name] or not is_answer(name, value):
                raise ValueError(f"labels {name} = {value!r} is not a profile answer")
        unknown = [m for m in self.mentions if m not in FIELD_VALUES]
        if unknown:
            raise ValueError(f"mentions {unknown} are not profile fields")
        return self


def load_clauses(paths: tuple[Path, ...] = CLAUSE_FILES) -> list[LabelledClause]:
    """Every clause file, validated; a bad line is a one-line ValueError naming file and line."""
    items: list[LabelledClause] = []
    for path in paths:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                items.append(LabelledClause(**json.loads(line)))
            except (ValueError, TypeError) as exc:
                raise ValueError(f"{path.name}:{n}: {' '.join(str(exc).splitlines()[:3])}") from None
    ids = [i.id for i in items]
    if len(set(ids)) != len(ids):
        raise ValueError(f"duplicate clause ids: {sorted({i for i in ids if ids.count(i) > 1})[:5]}")
    return items


def load_messages(paths: tuple[Path, ...] = MESSAGE_FILES) -> list[LabelledClause]:
    """Labelled whole messages as items (ids ``message:<file>:<id>``); an intake answer to one field is skipped.

    A stated "unknown" (data pipeline: "no idea if storage keeps up") is a real answer but no
    head's class: it trains as "not stated", which is what the heads should then say.
    """
    out: list[LabelledClause] = []
    for path in paths:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                if row.get("field") is None and not row.get("confirm"):
                    labels = {k: v for k, v in row.get("expect", {}).items() if is_answer(k, v)}
                    out.append(LabelledClause(id=f"message:{path.stem}:{row['id']}", text=row["text"], labels=labels))
            except (ValueError, TypeError, KeyError) as exc:
                raise ValueError(f"{path.name}:{n}: {' '.join(str(exc).splitlines()[:3])}") from None
    return out


def part_of(item_id: str) -> Part:
    """85 % train, 15 % validation, by a hash of the id (stable as the files grow).

    The buckets of the former 15 % test split train now: held-out figures come from fresh
    batches, and the tuned layers gained from every labelled line they could see."""
    bucket = int(hashlib.sha256(item_id.encode("utf-8")).hexdigest()[:8], 16) % 20
    return "validation" if 14 <= bucket < 17 else "train"


def data_sha256(paths: tuple[Path, ...]) -> str:
    """One hash over the training files' names and bytes: the weights are stale when it changes."""
    digest = hashlib.sha256()
    for path in sorted(paths, key=lambda p: p.name):
        digest.update(path.name.encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()

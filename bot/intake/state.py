"""The intake dialog's state: small, JSON round-trippable, and strict about what it holds.

The adaptive dialog asks questions in an order that depends on the answers, so the state
records *which* fields were asked (in order, for ``back``) rather than a position in a
fixed list. It is stored as JSON between messages (:mod:`bot.intake.persistence`), so a value
that names an unknown field or an impossible answer is refused at load (the store then
starts the dialog afresh) instead of failing later in a live dialog.

States saved before the dialog adapted held a ``position`` in the file's question order.
They are migrated on load: every field they have an answer for counts as asked, and the
dialog continues with the most informative question left. A malformed one (a negative
position, say) is refused like any other corrupt value.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from knowledge.recommend.profile import FIELD_VALUES, UNKNOWN, WorkloadProfile, parse_profile

__all__ = ["IntakeState", "Pending", "Status"]

Status = Literal["asking", "done", "cancelled"]


class Pending(BaseModel):
    """A reading of a free-text answer that needs the person's word before it counts.

    ``yes_no`` for a question such as "Did you mean critical custom kernels?"; otherwise the
    question is a choice ("jax or pytorch?") and the person answers it like the question.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    field: str
    value: str
    question: str = Field(min_length=1)
    evidence: str = ""
    yes_no: bool = True


class IntakeState(BaseModel):
    """Where a dialog stands. JSON-serializable; stored per conversation key."""

    model_config = ConfigDict(extra="forbid")

    #: fields asked and answered (``unknown`` when skipped), in the order they were asked
    asked: list[str] = []
    #: the field whose question is on screen; None while offering, confirming nothing, or finished
    current: str | None = None
    #: every answer recorded; only those of ``asked`` and ``volunteered`` fields count (the
    #: others are kept after a ``back`` to show "current answer" when asked again)
    answers: dict[str, str] = {}
    #: field stated unasked in a free-text answer -> the field whose answer stated it
    volunteered: dict[str, str] = {}
    #: field -> the words it came from, understood from the conversation before the intake began
    given: dict[str, str] = {}
    #: field -> why it is implied by what was said before the intake (never over a given answer)
    implied: dict[str, str] = {}
    #: the "answer the rest anyway?" offer is on screen
    offered: bool = False
    #: the person chose to answer the questions that cannot change the verdict too
    everything: bool = False
    #: a free-text reading waiting for yes/no (or a choice)
    confirm: Pending | None = None
    status: Status = "asking"
    #: how many unusable answers in a row to the current question
    misses: int = Field(default=0, ge=0)

    @model_validator(mode="before")
    @classmethod
    def _migrate_positional(cls, data: Any) -> Any:
        """Turn a pre-adaptive ``{"position": n, "answers": ...}`` state into this one."""
        if not isinstance(data, dict) or "position" not in data or "asked" in data:
            return data
        position = data.get("position")
        if not isinstance(position, int) or isinstance(position, bool) or position < 0:
            raise ValueError("a stored position must be a non-negative integer")
        answers = data.get("answers") or {}
        if not isinstance(answers, dict):
            raise ValueError("stored answers must be an object")
        migrated = {k: v for k, v in data.items() if k in ("answers", "status", "misses")}
        migrated["asked"] = [f for f in FIELD_VALUES if f in answers]
        return migrated

    @model_validator(mode="after")
    def _consistent(self) -> IntakeState:
        for f, v in self.answers.items():
            if f not in FIELD_VALUES or v not in FIELD_VALUES[f]:
                raise ValueError(f"answer {f}={v!r} is not in the profile contract")
        for f in (*self.asked, *self.volunteered, *self.volunteered.values(), *self.given, *self.implied):
            if f not in FIELD_VALUES:
                raise ValueError(f"unknown field {f!r}")
        sources = [set(self.asked), set(self.volunteered), set(self.given), set(self.implied)]
        if len(set(self.asked)) != len(self.asked) or sum(map(len, sources)) != len(set().union(*sources)):
            raise ValueError("a field is recorded twice")
        if any(f not in self.answers for f in (*self.asked, *self.volunteered, *self.given, *self.implied)):
            raise ValueError("an asked field has no answer")
        if self.current is not None and (self.current not in FIELD_VALUES or self.current in self.settled_fields()):
            raise ValueError(f"current field {self.current!r} is unknown or already answered")
        if self.confirm is not None and self.confirm.field != self.current:
            raise ValueError("a confirmation must be about the current question")
        return self

    def settled_fields(self) -> set[str]:
        """Fields that will not be asked again: asked (even if skipped), volunteered, or known before the intake."""
        return {*self.asked, *self.volunteered, *self.given, *self.implied}

    def known(self) -> dict[str, str]:
        """The answers that count, ``unknown`` included for skipped questions."""
        return {f: self.answers[f] for f in FIELD_VALUES if f in self.settled_fields()}

    def remaining(self) -> list[str]:
        """Fields never asked nor volunteered, in contract order."""
        done = self.settled_fields()
        return [f for f in FIELD_VALUES if f not in done]

    def profile(self) -> WorkloadProfile:
        """The answers as a validated profile (unasked and skipped fields are unknown)."""
        return parse_profile({f: v for f, v in self.known().items() if v != UNKNOWN}, origin="intake")

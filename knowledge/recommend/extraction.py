"""What reading a message returns: each field understood with the words it came from, what is
asked instead of assumed, and what each reader refused or left unsettled for the next one.

Shared by the rules (:mod:`knowledge.recommend.textual`), the learned heads
(:mod:`knowledge.recommend.learned`), the message reading and the conversation, so it lives apart
from any one of them.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from knowledge.recommend.profile import WorkloadProfile, parse_profile

__all__ = ["FieldEvidence", "Confirmation", "Extraction"]


class FieldEvidence(BaseModel):
    """One understood field: the answer, the words it came from, and how sure we are."""

    field: str
    value: str
    span: tuple[int, int]
    evidence: str
    confidence: float


class Confirmation(BaseModel):
    """Something that might mean ``field = value``: asked, never assumed."""

    field: str
    value: str
    span: tuple[int, int]
    evidence: str
    question: str
    #: a yes/no question about ``value`` ("It sounds like ...: right?"), not a choice between values
    yes_no: bool = False


class Extraction(BaseModel):
    fields: dict[str, FieldEvidence] = {}
    confirmations: list[Confirmation] = []
    #: (field, start, end) of matches the context cues dropped ("not on GCP"): kept so that a
    #: later reader of the same words (the learned heads) does not set what the rules refused
    dropped: list[tuple[str, int, int]] = Field(default_factory=list, exclude=True)
    #: the drops that rest only on the sentence naming someone else ("they", "someone", a company):
    #: a word list that also fires on "under someone's desk" and a manager's "they" for the team,
    #: so a reader of the clause's meaning (the learned heads and their modifier gate) may still read them
    doubted: list[tuple[str, int, int]] = Field(default_factory=list, exclude=True)
    #: (field, value, start) of each dropped match: what was refused is that value, so a reader of
    #: the clause's meaning may still read another ("nothing is in production": exploration)
    denied: list[tuple[str, str, int]] = Field(default_factory=list, exclude=True)
    #: (field, value, start, end) of every match behind a "Which is it" question the rules asked:
    #: a reader that can tell a plain statement from a past, planned or someone else's one
    #: (the learned modifier head) may settle it
    conflicts: list[tuple[str, str, int, int, float]] = Field(default_factory=list, exclude=True)
    #: (field, value, start, end, confidence) of every match behind a field the rules set: a field whose answer
    #: is a union of its matches ("retrain nightly ... live scoring": workload both) is re-read per match
    stated: list[tuple[str, str, int, int, float]] = Field(default_factory=list, exclude=True)
    #: (start, end) of the clauses a reader of meaning (the learned modifier gate) read as not a
    #: plain statement about the team now (planned, past, hedged, someone else's, a question);
    #: ``None`` when no such reader ran (the rules alone), so a later step knows it cannot tell
    modified: list[tuple[int, int]] | None = Field(default=None, exclude=True)

    def answers(self) -> dict[str, str]:
        return {f: e.value for f, e in self.fields.items()}

    def profile(self) -> WorkloadProfile:
        return parse_profile(self.answers(), origin="text")

"""Answer objects shared by every front end.

The CLI, REPL, Slack app and FAQ batch all render these same objects, and their
``to_contract()`` methods produce exactly the JSON shapes DESIGN.md promises.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

__all__ = [
    "Citation",
    "AnswerSentence",
    "Answer",
]

SentenceRole = Literal["answer", "verdict", "gpu", "tpu", "curated"]


class Citation(BaseModel):
    """One cited chunk. ``label`` is the exact citation label of the contract."""

    label: str
    chunk_id: str
    source: str
    pages: str
    score: float


class AnswerSentence(BaseModel):
    """A sentence of an extractive answer, verbatim from the chunk it cites."""

    text: str
    chunk_id: str
    role: SentenceRole = "answer"


class Answer(BaseModel):
    """An answer (or a refusal) to one question.

    List and dict defaults are written ``= []`` (pydantic copies them per instance), here and
    in every model: ``Field(default_factory=list)`` makes pydantic read the signature of the
    builtin ``list``, which compiles the ``tokenize`` module's regular expression, ~45 ms of
    every cold ``hwbot ask``.
    """

    question: str
    answer: str
    declined: bool
    citations: list[Citation] = []
    sentences: list[AnswerSentence] = []
    #: e.g. "question truncated to 2000 characters"; shown by front ends, not part of the contract.
    notices: list[str] = []
    #: "hybrid" answers, "curated" FAQ answers or "declined".
    mode: str = "hybrid"
    #: What the question asks for (knowledge.qa.intent): "definition", "comparison", ...
    intent: str = ""
    #: Why an answer was declined: "no_evidence", "out_of_scope", "no_figure", "no_code",
    #: "no_answer", "off_object", "no_question", "language".
    decline_reason: str = ""
    #: The ask's answer type (knowledge.qa.asks): "yes_no", "how_to_fix", ...; "multi" for several.
    ask: str = ""
    #: For a question of several asks: each ask's own answer, in order.
    parts: list["Answer"] = []

    def to_contract(self) -> dict:
        """The ``ask --json`` object: the contract's keys, in order, then the ``intent`` extension."""
        return {
            "question": self.question,
            "answer": self.answer,
            "declined": self.declined,
            "citations": [c.model_dump() for c in self.citations],
            "intent": self.intent,
        }

"""Reading a free-text intake answer with the shared extractor, ``profile_from_text``.

People answer "we have 8 GPUs" rather than "2". When an answer is not an option
(number, value, label or synonym), the dialog asks the extractor twice: once with the
question's field (so words that only make sense as an answer to it count, e.g. "every
week"), and once without (so other fields stated in passing are seen: "AWS, and we use
PyTorch" to the cloud question). What the extractor finds ambiguous it turns into a
confirmation, and so does the dialog: it asks, never guesses. Fields stated in passing
are kept only when the extractor found them unambiguous and they are not answered yet.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from bot.intake.state import Pending
from knowledge.recommend.textual import load_vocabulary, profile_from_text

__all__ = ["Reading", "read_answer"]


@dataclass(frozen=True)
class Reading:
    """What a free-text answer to ``field``'s question said."""

    #: the asked field's value, when understood
    value: str | None = None
    #: the words it was read from
    evidence: str = ""
    #: a reading of the asked field that needs the person's word
    confirm: Pending | None = None
    #: other, not yet answered fields stated unambiguously: field -> (value, evidence)
    others: dict[str, tuple[str, str]] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return self.value is None and self.confirm is None and not self.others


@lru_cache(maxsize=1)
def _yes_no_questions() -> frozenset[str]:
    """The vocabulary's own confirmation questions, which are yes/no ("Did you mean ...?").

    The extractor's other confirmations come from conflicting words ("jax or pytorch?"):
    those are a choice between values, not a yes/no.
    """
    return frozenset(c.question for c in load_vocabulary().confirm)


def read_answer(text: str, field: str, answered: set[str]) -> Reading:
    """Read ``text`` as an answer to ``field``; ``answered`` fields are never overwritten."""
    asked = profile_from_text(text, field=field)
    value, evidence, confirm = None, "", None
    if field in asked.fields:
        hit = asked.fields[field]
        value, evidence = hit.value, hit.evidence
    else:
        mine = next((c for c in asked.confirmations if c.field == field), None)
        if mine is not None:
            confirm = Pending(field=field, value=mine.value, question=mine.question,
                              evidence=mine.evidence, yes_no=mine.question in _yes_no_questions())
    whole = profile_from_text(text)
    unsure = {c.field for c in whole.confirmations}
    others = {
        f: (hit.value, hit.evidence)
        for f, hit in whole.fields.items()
        if f != field and f not in answered and f not in unsure
    }
    return Reading(value=value, evidence=evidence, confirm=confirm, others=others)

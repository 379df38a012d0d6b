"""The answer lint: what a senior engineer would reject in an answer, checked mechanically.

Every answered dev question must pass:
- no sentence opens with a dangling reference (the openers of ``knowledge/qa/data/standalone.toml``);
- no fact twice: no two answer sentences closer than ``REPEAT_COSINE`` (same model);
- the length is within the intent's sentence budget;
- a choice (comparison or situational) leads with a sentence naming a GPU, a TPU, or
  what the choice depends on;
- no fallback or hedge sentence leads ("When neither list fits cleanly, ...");
- a "For GPUs:" / "For TPUs:" side holds only sentences about that side.
"""

from __future__ import annotations

import re
from typing import Protocol

import numpy as np

from knowledge.qa.answers import Answer
from knowledge.qa.intent import CHOICE_INTENTS, intent_data
from knowledge.qa.leads import is_hedge
from knowledge.qa.sides import side_of
from knowledge.qa.standalone import dangling_opener

__all__ = ["lint_answer", "REPEAT_COSINE"]

#: Two sentences this similar state the same fact.
REPEAT_COSINE = 0.85


class _Encoder(Protocol):
    def encode(self, texts: list[str]) -> np.ndarray: ...


def lint_answer(answer: Answer, embedder: _Encoder, *, budget: int | None = None) -> list[str]:
    """The lint violations of one answer (empty for a refusal or a clean answer)."""
    if answer.declined:
        return []
    texts = [s.text for s in answer.sentences]
    out: list[str] = []
    for t in texts:
        opener = dangling_opener(t)
        if opener:
            out.append(f"dangling opener {opener!r}: {t[:60]}")
    if len(texts) > 1:
        vecs = np.asarray(embedder.encode(texts), dtype=np.float32)
        sims = vecs @ vecs.T
        for i in range(len(texts)):
            for j in range(i + 1, len(texts)):
                if sims[i, j] >= REPEAT_COSINE:
                    out.append(f"repeated fact ({sims[i, j]:.2f}): {texts[j][:60]}")
    if texts and is_hedge(texts[0]):
        out.append(f"a hedge leads: {texts[0][:60]}")
    for s in answer.sentences:
        if s.role in ("gpu", "tpu") and side_of(s.text) != s.role:
            out.append(f"off-side sentence under For {s.role.upper()}s: {s.text[:60]}")
    limit = budget if budget is not None else intent_data().spec(answer.intent).max_sentences if answer.intent else None
    if limit is not None and len(texts) > limit:
        out.append(f"{len(texts)} sentences over the {answer.intent} budget of {limit}")
    if answer.intent in CHOICE_INTENTS and texts:
        lead = texts[0]
        if side_of(lead) is None and not re.search(r"\bdepends on\b", lead, re.I):
            out.append(f"choice answer does not lead with GPU, TPU or what it depends on: {lead[:60]}")
    return out

"""Is what a question asks inside the notes' domain? The scope checks :meth:`QAEngine.ask` makes
before it composes, each defined once.

Three signals, from crude to learned: the intent prototypes (a handful of example sentences per
intent), the *asking clause* after a preamble ("quick break from the GPU debates: what's a good
pasta recipe?"), and the learned out-of-domain gate (:mod:`knowledge.qa.domain_gate`), fitted on
hundreds of labelled questions with the retrieval evidence beside the wording. The first two may
call a question out of scope; where the gate is confident it is in the domain, it overrules them.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from knowledge.qa.intent import IntentClassifier
from knowledge.qa.sides import mentions_domain, vocabulary

__all__ = ["asking_clause", "asks_elsewhere", "with_subject"]

#: Where a preamble ends and the asking clause begins: a dash, a colon or a semicolon.
_ASKING_CLAUSE = re.compile(r"\s[\u2014\u2013-]\s|\u2014|[:;]\s")
#: An asking clause shorter than this leans on what came before it.
_MIN_ASKING_CLAUSE_WORDS = 7


def asking_clause(focus: str) -> str:
    """The clause after the last preamble break (the whole focus when there is none)."""
    return _ASKING_CLAUSE.split(focus)[-1].strip()


def with_subject(clause: str, question: str) -> str:
    """``clause``, followed by the accelerator ``question`` names first when the clause names none.

    An asking clause judged alone loses what the preamble said it is about: "our TPU quota finally got
    approved!! What should we watch for so we don't burn money on it?" asks about TPUs (fq82-17,
    fq83-11 were declined), while "... unrelated: what's a good pizza place?" stays out of scope."""
    voc = vocabulary()
    if voc.gpu.search(clause) or voc.tpu.search(clause):
        return clause
    named = [m for m in (voc.tpu.search(question), voc.gpu.search(question)) if m is not None]
    return f"{clause} ({min(named, key=lambda m: m.start()).group(0)})" if named else clause


def asks_elsewhere(intents: IntentClassifier, encode: Callable[[str], np.ndarray], focus: str, text: str) -> bool:
    """A question about something else after a preamble in our domain is out of scope by what it
    asks, not by what it mentions. A short clause ("... — which way should we lean?") leans on its
    context and is not judged alone."""
    asked = asking_clause(focus)
    if asked == text or len(asked.split()) < _MIN_ASKING_CLAUSE_WORDS or mentions_domain(asked):
        return False
    asked = with_subject(asked, text)
    return intents.classify(asked, encode(asked)).name == "out_of_scope"

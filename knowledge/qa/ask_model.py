"""What kind of answer an ask wants, learned from outside writers' labelled questions.

The answer type of an ask (yes/no, why, how, how to fix, does it matter, a choice for the team,
...) decides what may lead its answer and whether the recommendation engine answers it. It was
read from cue patterns (``data/asks.toml``) and, without a cue, from the nearest intent
prototype. Held out writer by writer on the measured batches, that agreed with the writers' own
labels for 144 of 296 single-ask questions: a cue matched the wrong clause ("whats the usual
trick?" read as a definition), and without a cue a team's situation pulled every ask to "choice".

This model reads the meaning instead: a multinomial logistic regression over the embedding of
the asking sentence (:func:`knowledge.qa.asks.focus_of`) beside the embedding of the whole ask,
both the query encoder's, so nothing new is encoded for a one-sentence question. Its weights are
data (``data/ask_model/``: ``weights.npy``, one row per type, and ``manifest.json``, validated
here), fitted by ``hwbot fit-asks`` (:mod:`knowledge.evaluation.fit_asks`), which documents the
training data and measures it held out by batch.

What stays with the cues (:func:`ask_type`): an intent of figure, code or out of scope; "GPU or
TPU?" (a choice or an open comparison, by whether it speaks of the team); and every cue but the
three that held out worse than the model. Held out by batch on 236 questions, the cues of
does-it-matter, why, how, how-to-fix, list and choice agreed with the writers as often as the
model or more (does it matter: 14 of 14 against 12); a yes/no, what-is or which-one cue agreed
for 37 of 81 against the model's 52 (a yes/no cue fires on any "is"/"does" after a comma, a
what-is cue on "whats the usual trick?"), and with no cue at all the intent prototypes agreed
for 24 of 79 against 50. Cues where they held, the model elsewhere: 168 of 236, against 126
for cues and prototypes and 162 for the model alone. A type the model never learned (the writers
had no "open comparison" label) stays wherever the cues or the intent give it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, model_validator

from knowledge.qa.asks import ASK_TYPES, accelerator_options, answer_type, cue_type, focus_of, intent_type, names_both
from knowledge.qa.weights_dir import read_weights_dir

__all__ = ["AskModelManifest", "AskModel", "DEFAULT_DIR", "ask_model", "install", "ask_type", "ask_features", "UNTRAINED_CUES", "OVERRULED_CUES", "model_decides", "structural"]

DEFAULT_DIR = Path(__file__).with_name("data") / "ask_model"

#: cue types the model is never trained on (the writers had no such label)
UNTRAINED_CUES = frozenset({"compare", "realistic", "watch"})
#: the cues the model overrules (held out, they agreed with the writers less often than it)
OVERRULED_CUES = frozenset({"yes_no", "what_is", "which_one"})
#: "what are the costs of ...": an ask for things, not for which accelerator to pick
_WHAT_ARE = re.compile(r"\bwhat\s+(?:are|were)\b", re.IGNORECASE)


class AskModelManifest(BaseModel):
    """Which types the weight rows stand for, their shape, and where they came from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: int
    command: str
    fitted_on: list[str]
    n: int
    dim: int
    types: list[str]
    #: held out batch by batch on the training questions: agreement with the writers' labels
    held_out_agree: int = 0
    held_out_before: int = 0

    @model_validator(mode="after")
    def _known(self) -> "AskModelManifest":
        unknown = sorted(set(self.types) - set(ASK_TYPES))
        if unknown:
            raise ValueError(f"types not among the answer types: {', '.join(unknown)}")
        if len(set(self.types)) != len(self.types) or len(self.types) < 2:
            raise ValueError("types must be at least two, each once")
        return self


class AskModel:
    """A loaded model: its manifest and its weights (one row per type: asking sentence, whole ask, bias)."""

    def __init__(self, manifest: AskModelManifest, weights: np.ndarray) -> None:
        expected = (len(manifest.types), 2 * manifest.dim + 1)
        if weights.shape != expected:
            raise ValueError(f"ask model weights have shape {weights.shape}, expected {expected}")
        self.manifest = manifest
        self.weights = weights.astype(np.float64)

    @classmethod
    def load(cls, directory: Path) -> "AskModel":
        return cls(*read_weights_dir(directory, AskModelManifest))

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        """P(type) per raw feature row (:func:`ask_features`), columns in ``manifest.types`` order."""
        rows = np.atleast_2d(rows)
        z = rows @ self.weights[:, :-1].T + self.weights[:, -1]
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return np.asarray(e / e.sum(axis=1, keepdims=True))

    def predict(self, focus_vec: np.ndarray, ask_vec: np.ndarray) -> str:
        p = self.probabilities(ask_features(focus_vec, ask_vec))[0]
        return self.manifest.types[int(np.argmax(p))]


def ask_features(focus_vec: np.ndarray, ask_vec: np.ndarray) -> np.ndarray:
    """One raw feature row: the asking sentence's embedding, then the whole ask's."""
    return np.concatenate([np.asarray(focus_vec, dtype=np.float64).ravel(), np.asarray(ask_vec, dtype=np.float64).ravel()])


#: a model the held-out evaluation installs in place of the committed one ([None]: the committed one)
_override: list[AskModel | None] = [None]
#: set by :func:`install` with ``off=True``: the cue-and-prototype typing alone (the "before" arm)
_disabled: list[bool] = [False]


@lru_cache(maxsize=1)
def _committed() -> AskModel | None:
    return AskModel.load(DEFAULT_DIR) if (DEFAULT_DIR / "manifest.json").exists() else None


def ask_model() -> AskModel | None:
    """The model in use: an installed override (evaluation only), else the committed weights, else none."""
    if _disabled[0]:
        return None
    return _override[0] if _override[0] is not None else _committed()


def install(model: AskModel | None, *, off: bool = False) -> None:
    """Use ``model`` instead of the committed weights (``None`` restores them; ``off`` types by
    cues and prototypes alone). For evaluation runs."""
    _override[0] = model
    _disabled[0] = off


def ask_type(text: str, intent: str, ask_vec: np.ndarray | None, encode: Callable[[str], np.ndarray] | None = None) -> str:
    """The ask's answer type: structural cases first, then the learned model, else the cues and the intent.

    ``text``: the ask; ``intent``: the question engine's intent for it; ``ask_vec``: the ask's
    embedding (None: no model); ``encode``: the query encoder, for an asking sentence that is
    not the whole ask.
    """
    model = ask_model()
    if model is None or ask_vec is None or not model_decides(text, intent):
        return answer_type(text, intent)
    focus = focus_of(text)
    if focus == text:
        return model.predict(ask_vec, ask_vec)
    return model.predict(encode(focus), ask_vec) if encode is not None else answer_type(text, intent)


def structural(text: str, intent: str) -> bool:
    """Typed before any model, at answering and in training alike: a figure, code or out-of-scope
    request by its intent, or "GPU or TPU?" by its options."""
    return intent in ("figure", "code", "out_of_scope") or accelerator_options(text)


def model_decides(text: str, intent: str) -> bool:
    """Whether the model types this ask: not a :func:`structural` one, not when to pick one
    accelerator (an open comparison, a type it never learned), and no cue that held out better
    than it."""
    if structural(text, intent):
        return False
    cued = cue_type(text)
    if cued is None and intent_type(text, intent) == "compare" and not names_both(text) and not _WHAT_ARE.search(focus_of(text)):
        # "when is a TPU the right call?": when to pick one accelerator, a verdict's ask; "what are
        # the principal costs of standardizing on TPUs?" names one too, but asks for its costs (the
        # writers typed it a list, and the two-sided "For GPUs / For TPUs" answer buried them)
        return False
    return cued is None or cued in OVERRULED_CUES

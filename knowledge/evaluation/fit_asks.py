"""Fit the ask-type model (:mod:`knowledge.qa.ask_model`) on outside writers' labelled questions.

Training questions: every in-domain question of the measured batches (``data/measured/fq*.jsonl``:
fresh batches after their first measurement), each labelled by its writer with the kind of
answer it asks for. Writers used a few names of their own for the answer types; the mapping is
data (``data/ask_labels.toml``). A question is a training row only when the model would type it:
one ask (a multi-part question's label names one part of several), not a figure or code request
and not out of scope by its intent, not "GPU or TPU?" and not a cue the model leaves alone
(:data:`knowledge.qa.ask_model.UNTRAINED_CUES`).

Each row is what the answerer computes for the ask: the query encoder's embedding of the asking
sentence beside that of the whole question. The model is scikit-learn's multinomial logistic
regression, classes weighted to count equally (yes/no questions outnumber the rest); only the
weight matrix ships, and answering needs numpy alone.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, field_validator

from knowledge.qa.ask_model import UNTRAINED_CUES, AskModel, AskModelManifest, ask_features, model_decides, structural
from knowledge.qa.asks import ASK_TYPES, answer_type, cue_type, focus_of
from knowledge.qa.splitting import split_asks
from knowledge.qa.weights_dir import write_weights_dir

__all__ = ["LABELS_FILE", "MEASURED", "LabelledAsk", "load_labelled_asks", "fit_ask_model", "write_ask_model", "STRUCTURAL_TYPES"]

_DATA = Path(__file__).resolve().parent / "data"
LABELS_FILE = _DATA / "ask_labels.toml"
MEASURED = _DATA / "measured"
#: answer types decided before the model is asked (by the intent or a cue); never trained on
STRUCTURAL_TYPES = frozenset({"figure", "code", "out_of_scope"}) | UNTRAINED_CUES
#: inverse regularization strength: chosen held out by batch on fq6-fq17 (2, 4, 8 agreed within 5 of 296)
C = 4.0


class _Labels(BaseModel):
    """``data/ask_labels.toml``: writers' names for answer types → the answerer's names."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    labels: dict[str, str]

    @field_validator("labels")
    @classmethod
    def _known(cls, v: dict[str, str]) -> dict[str, str]:
        bad = sorted(t for t in v.values() if t not in ASK_TYPES)
        if bad:
            raise ValueError(f"not answer types: {', '.join(bad)}")
        return v


@dataclass(frozen=True)
class LabelledAsk:
    """One training question: its batch (file stem), its text, and its answer type by its writer."""

    batch: str
    question: str
    label: str


def _label_map() -> dict[str, str]:
    return _Labels.model_validate(tomllib.loads(LABELS_FILE.read_text(encoding="utf-8"))).labels


def load_labelled_asks(paths: Sequence[Path] | None = None) -> list[LabelledAsk]:
    """The in-domain single-ask questions of ``paths`` (default: every measured batch) with their labels."""
    names = _label_map()
    out = []
    for path in sorted(MEASURED.glob("fq*.jsonl")) if paths is None else paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            item = json.loads(line)
            if item.get("domain") != "in" or not item.get("ask"):
                continue
            label = names.get(item["ask"], item["ask"])
            question = str(item["question"])
            if label in ASK_TYPES and label not in STRUCTURAL_TYPES and len(split_asks(question)[0]) == 1:
                out.append(LabelledAsk(batch=path.stem, question=question, label=label))
    return out


def trainable(question: str, intent: str) -> bool:
    """Whether the answerer would ask the model to type this question (see the module's docstring)."""
    return not (structural(question, intent) or cue_type(question) in UNTRAINED_CUES)


def feature_rows(
    asks: Sequence[LabelledAsk], encode: Callable[[str], np.ndarray], classify: Callable[[str, np.ndarray], str],
) -> tuple[np.ndarray, list[str], list[bool], list[bool]]:
    """Rows as the answerer builds them, and per ask: its cue-and-prototype typing, whether it is
    trainable, and whether the model types it when answering (no cue, or one it overrules)."""
    rows, before, keep, decides = [], [], [], []
    for a in asks:
        qvec = encode(a.question)
        focus = focus_of(a.question)
        fvec = qvec if focus == a.question else encode(focus)
        intent = classify(a.question, qvec)
        rows.append(ask_features(fvec, qvec))
        before.append(answer_type(a.question, intent))
        keep.append(trainable(a.question, intent))
        decides.append(model_decides(a.question, intent))
    return (np.vstack(rows) if rows else np.zeros((0, 0))), before, keep, decides


def fit_ask_model(x: np.ndarray, labels: Sequence[str], fitted_on: list[str], *, c: float = C) -> AskModel:
    """A multinomial logistic regression on raw rows ``x`` (no standardizing: both halves are unit vectors)."""
    from sklearn.linear_model import LogisticRegression

    if len(set(labels)) < 2:
        raise ValueError("the ask model needs at least two answer types among its training questions")
    model = LogisticRegression(C=c, max_iter=5000, class_weight="balanced").fit(x, list(labels))
    types = [str(t) for t in model.classes_]
    weights = np.hstack([model.coef_, model.intercept_[:, None]])
    if len(types) == 2:  # one row for two classes (a logistic): as a softmax, the first class's row is zero
        weights = np.vstack([np.zeros_like(weights), weights])
    manifest = AskModelManifest(
        format=1, command="hwbot fit-asks", fitted_on=fitted_on, n=len(labels), dim=x.shape[1] // 2, types=types,
    )
    return AskModel(manifest, weights)


def write_ask_model(model: AskModel, directory: Path) -> None:
    write_weights_dir(directory, model.manifest, model.weights)

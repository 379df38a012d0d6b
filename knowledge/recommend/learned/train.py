"""Training the clause heads: the one way ``heads.npy`` and its manifest are made.

Run as ``hwbot train-extractor`` (the CLI passes the index's ONNX encoder, so training sees
exactly the vectors ``recommend --text`` will compute). Steps, all deterministic:

1. every labelled clause (and one-clause phrasing or labelled message, see :mod:`.data`) is encoded once;
2. each head (one per field, plus the modifier head) is a multinomial logistic regression
   with L2, fitted by L-BFGS (scipy, at training time only) on the ``train`` split;
3. each field's thresholds are chosen on the ``validation`` split, never on ``train``:
   ``high`` is the lowest probability at which the head's readings are still at least
   :data:`TARGET_PRECISION` right, ``medium`` the lowest at which they are
   :data:`CONFIRM_PRECISION` right (worth a yes/no question); the modifier gate likewise;
4. the weights and a manifest recording the data's hash, the encoder's model id and
   probe vector are written to ``data/extractor/``.

The ``test`` split is never used here; :mod:`knowledge.evaluation.ablation` reports on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from knowledge.recommend.learned.clauses import split_clauses
from knowledge.recommend.learned.combine import ClauseReader, field_readings
from knowledge.recommend.learned.data import (
    CALIBRATION_FILES,
    CLAUSE_FILES,
    MODIFIERS,
    PHRASING_FILES,
    LabelledClause,
    data_sha256,
    load_clauses,
    load_phrasing_clauses,
    part_of,
)
from knowledge.recommend.learned.heads import (
    FORMAT,
    HEADS_DIR,
    TRAIN_COMMAND,
    Head,
    Heads,
    HeadsManifest,
    Thresholds,
    write_heads,
)
from knowledge.recommend.profile import FIELD_VALUES, UNKNOWN
from knowledge.recommend.textual import MAX_TEXT_CHARS, profile_from_text

if TYPE_CHECKING:  # pragma: no cover
    from indexer.query_encoder import QueryEncoder

__all__ = ["train_heads", "fit_softmax", "choose_threshold", "TARGET_PRECISION", "CONFIRM_PRECISION", "L2"]

TARGET_PRECISION = 0.97
CONFIRM_PRECISION = 0.80
#: Never set a field below this probability, whatever the validation split says (it is small).
MIN_HIGH = 0.9
MIN_MEDIUM = 0.35
#: Readings the validation split must hold above a threshold before that threshold is believed.
MIN_SUPPORT = 5
L2 = 3e-5
NONE = "none"


def fit_softmax(x: np.ndarray, y: np.ndarray, classes: int, l2: float = L2, balance: float = 0.5) -> np.ndarray:
    """(dim + 1, classes) weights (bias last) of an L2 multinomial logistic regression, by L-BFGS."""
    from scipy.optimize import minimize

    n, dim = x.shape
    xb = np.hstack([x, np.ones((n, 1))]).astype(np.float64)
    onehot = np.eye(classes)[y]
    counts = onehot.sum(axis=0)
    # sample weights count^-balance (0.5: rare answers are not drowned by "not stated", nor over-trusted)
    weight = (np.maximum(counts, 1) ** -balance)[y]
    weight *= n / weight.sum()
    mask = np.ones((dim + 1, 1))
    mask[-1] = 0.0  # the bias is not shrunk

    def loss(flat: np.ndarray) -> tuple[float, np.ndarray]:
        w = flat.reshape(dim + 1, classes)
        z = xb @ w
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        value = -np.sum(weight * np.log(np.maximum(p[np.arange(n), y], 1e-12))) / n + l2 * np.sum((w * mask) ** 2)
        grad = xb.T @ ((p - onehot) * weight[:, None]) / n + 2 * l2 * w * mask
        return float(value), grad.ravel()

    result = minimize(loss, np.zeros((dim + 1) * classes), jac=True, method="L-BFGS-B", options={"maxiter": 500})
    return np.asarray(result.x, dtype=np.float64).reshape(dim + 1, classes)


def choose_threshold(scores: "Sequence[float] | np.ndarray", right: "Sequence[bool] | np.ndarray", precision: float, floor: float) -> float:
    """The lowest threshold (on a 0.01 grid, at least ``floor``) whose readings are ``precision`` right.

    Returns 1.01 (never) when no threshold with :data:`MIN_SUPPORT` readings reaches it.
    """
    s, r = np.asarray(scores, dtype=np.float64), np.asarray(right, dtype=bool)
    best = 1.01
    for t in np.round(np.arange(0.99, floor - 1e-9, -0.01), 2):
        above = s >= t
        if above.sum() >= MIN_SUPPORT and r[above].mean() >= precision:
            best = float(t)
    return best


def _softmax(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    z = x @ w[:-1] + w[-1]
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=1, keepdims=True)


def _field_targets(items: list[LabelledClause], name: str, classes: tuple[str, ...]) -> np.ndarray:
    return np.array([classes.index(i.labels.get(name, NONE)) for i in items])


def train_heads(
    encoder: "QueryEncoder", *, out_dir: Path = HEADS_DIR, files: tuple[Path, ...] = CLAUSE_FILES,
    phrasings: tuple[Path, ...] = PHRASING_FILES, l2: float = L2, calibration: tuple[Path, ...] = CALIBRATION_FILES,
) -> HeadsManifest:
    """Fit every head on ``train``, choose thresholds on ``validation``, write weights and manifest."""
    clauses = load_clauses(files)
    # the labelled whole messages that are one clause long join the field heads too (written by
    # outsiders, in the words users send); those in ``train`` are then left out of the threshold
    # calibration below, which must not be chosen on what was fitted
    fresh = load_phrasing_clauses(calibration)
    fitted = {i.text for i in fresh if part_of(i.id) == "train"}
    items = clauses + load_phrasing_clauses(phrasings) + fresh
    x = np.asarray(encoder.encode([i.text for i in items], progress=False), dtype=np.float64)
    parts = np.array([part_of(i.id) for i in items])
    train, val = parts == "train", parts == "validation"
    heads: list[Head] = []
    blocks: list[np.ndarray] = []
    thresholds: dict[str, Thresholds] = {}
    pairs: dict[str, tuple[list[float], list[bool]]] = {}
    offset = 0
    for name, values in FIELD_VALUES.items():
        classes = (NONE, *(v for v in values if v != UNKNOWN))
        y = _field_targets(items, name, classes)
        w = fit_softmax(x[train], y[train], len(classes), l2)
        p = _softmax(x[val], w)
        best = p[:, 1:].argmax(axis=1) + 1
        score = p[np.arange(len(best)), best]
        right = best == y[val]
        pairs[name] = (list(score), list(right))
        heads.append(Head(name=name, classes=classes, offset=offset))
        blocks.append(w)
        offset += len(classes)
    y_mod = np.array([MODIFIERS.index(i.modifier or NONE) for i in items])
    labelled = np.arange(len(items)) < len(clauses)  # phrasings carry no modifier label
    w_mod = fit_softmax(x[train & labelled], y_mod[train & labelled], len(MODIFIERS), l2)
    p_mod = 1.0 - _softmax(x[val], w_mod)[:, 0]
    # the gate: a clause this likely to be negated, hedged, planned, past, someone else's or a
    # question may not set a field; chosen where it is right about "some modifier" 80 % of the time
    gate = choose_threshold(p_mod, y_mod[val] != 0, CONFIRM_PRECISION, 0.3)
    # the thresholds: the clause validation split, joined by the labelled whole messages read as
    # users send them (the rules first, the heads for what they left open): a head's reading of
    # a field the message does not state counts as wrong, so a threshold that invents is not chosen
    probe = encoder.probe()
    provisional = HeadsManifest(
        format=FORMAT, command=TRAIN_COMMAND, model_id=encoder.model_id, dim=encoder.dim,
        probe=tuple(round(float(v), 7) for v in probe),
        data_files=(), data_sha256="", weights_sha256="", l2=l2, heads=(*heads, Head(name="modifier", classes=MODIFIERS, offset=offset)),
        thresholds={n: Thresholds(high=1.01, medium=1.01) for n in FIELD_VALUES}, modifier_gate=gate,
    )
    reader = ClauseReader(encode=lambda texts: encoder.encode(texts, progress=False),
                          heads=Heads(provisional, np.hstack([*blocks, w_mod])))
    unfitted = [(t, e) for t, e in load_calibration_messages(calibration) if t not in fitted]
    for name, (scores, rights) in message_readings(unfitted, reader).items():
        pairs[name][0].extend(scores)
        pairs[name][1].extend(rights)
    for name, (scores, rights) in pairs.items():
        thresholds[name] = Thresholds(
            high=choose_threshold(np.array(scores), np.array(rights), TARGET_PRECISION, MIN_HIGH),
            medium=choose_threshold(np.array(scores), np.array(rights), CONFIRM_PRECISION, MIN_MEDIUM),
        )
    heads.append(Head(name="modifier", classes=MODIFIERS, offset=offset))
    blocks.append(w_mod)
    manifest = HeadsManifest(
        format=FORMAT, command=TRAIN_COMMAND, model_id=encoder.model_id, dim=encoder.dim,
        probe=tuple(round(float(v), 7) for v in probe), data_files=tuple(p.name for p in files + phrasings + calibration),
        data_sha256=data_sha256(files + phrasings + calibration), weights_sha256="", l2=l2, heads=tuple(heads), thresholds=thresholds,
        modifier_gate=gate,
    )
    write_heads(out_dir, manifest, np.hstack(blocks))
    return manifest


def load_calibration_messages(paths: tuple[Path, ...]) -> list[tuple[str, dict[str, str]]]:
    """Labelled whole messages (``text``, ``expect``), validated as the phrasings are."""
    from knowledge.evaluation.extraction import load_phrasings

    return [(p.text, dict(p.expect)) for path in paths for p in load_phrasings(path)]


def message_readings(messages: list[tuple[str, dict[str, str]]], reader: ClauseReader) -> dict[str, tuple[list[float], list[bool]]]:
    """Per field, the heads' best ungated reading of each message where the rules left it open, and whether it is right.

    This is what :func:`knowledge.recommend.learned.combine.extract_message` would set at a
    threshold below that reading, so thresholds chosen on it are chosen for whole messages.
    """
    out: dict[str, tuple[list[float], list[bool]]] = {n: ([], []) for n in FIELD_VALUES}
    for text, expect in messages:
        rules = profile_from_text(text)
        clauses = split_clauses(text[:MAX_TEXT_CHARS])
        if not clauses:
            continue
        asked = {c.field for c in rules.confirmations} | set(rules.fields)
        readings = [r for r in field_readings(text, clauses, reader) if not r.gated and r.field not in asked]
        for name in FIELD_VALUES:
            mine = [r for r in readings if r.field == name
                    and not any(f == name and r.clause.start <= s < r.clause.end for f, s, _ in rules.dropped)]
            if mine:
                best = max(mine, key=lambda r: r.p)
                out[name][0].append(best.p)
                out[name][1].append(expect.get(name) == best.value)
    return out

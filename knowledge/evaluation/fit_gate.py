"""Fit the out-of-domain gate (:mod:`knowledge.qa.domain_gate`) on labelled questions.

Training questions, each labelled in or out of the notes' domain:

- any labelled batches passed on the command line (for experiments; the committed weights use
  only what is in the repository);
- the dev set ``data/dev.jsonl`` (its in/out labels);
- ``data/domain_gate_extra.jsonl``: questions written for the gate by the engineer who built it
  (near-domain how-tos, figure, date and code requests, injections; covered questions in odd
  wording), written from the notes' headings, not from any evaluation question;
- ``data/domain_gate_train.jsonl``: 238 more (120 in, 118 out), written section by section from
  the notes by a helper who saw no evaluation question and no output of hwbot;
- ``data/domain_gate_situations.jsonl``: a team's situation followed by a short generic ask
  ("what's going on?"), in and out of the notes, by another such helper;
- ``data/measured/fq*.jsonl``: fresh question batches after their first measurement.

The files in the repository are the default training set, so ``hwbot fit-gate`` with no
arguments rebuilds the committed weights from the repository alone.

Each question is observed exactly as the answerer observes it (:func:`knowledge.qa.observation.observe`), and its
row is the embedding plus the evidence scalars. An L2-penalized logistic regression (classes
weighted to count equally) is fitted by Newton's method. The threshold is chosen on 5-fold
out-of-fold probabilities so that at most ``max_in_declined`` of the in-domain training questions
would be declined by the gate: it declines only when confident. Symmetrically, the threshold
below which the gate *admits* a question over the intent prototypes' out-of-scope call is set so
that at most ``max_out_admitted`` of the out-of-domain training questions fall below it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from knowledge.qa.domain_gate import SCALARS, Gate, GateModel, gate_features
from knowledge.qa.observation import observe
from knowledge.qa.weights_dir import write_weights_dir

if TYPE_CHECKING:  # pragma: no cover
    from knowledge.qa.service import QAEngine

__all__ = ["DEV_FILE", "EXTRA_FILE", "TRAIN_FILE", "REPO_FILES", "load_labelled", "feature_matrix", "fit_gate", "write_gate", "never_gate"]

_DATA = Path(__file__).resolve().parent / "data"
DEV_FILE = _DATA / "dev.jsonl"
EXTRA_FILE = _DATA / "domain_gate_extra.jsonl"
TRAIN_FILE = _DATA / "domain_gate_train.jsonl"
SITUATIONS_FILE = _DATA / "domain_gate_situations.jsonl"
#: the training files in the repository, always fitted on (batches given on the command line are added):
#: the written ones, and every question batch in ``measured/`` (fresh batches after their first measurement)
REPO_FILES = (DEV_FILE, EXTRA_FILE, TRAIN_FILE, SITUATIONS_FILE, *sorted((_DATA / "measured").glob("fq*.jsonl")))

_L2 = 0.03  # penalty on the weights (not the bias); the embedding is unit-norm, the scalars standardized
_FOLDS = 5


def load_labelled(path: Path) -> list[tuple[str, bool]]:
    """(question, is_out_of_domain) for every row of a JSON-lines file with ``question`` and ``domain``."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            item = json.loads(line)
            if item.get("domain") in ("in", "out"):
                rows.append((str(item["question"]), item["domain"] == "out"))
    return rows


def feature_matrix(engine: "QAEngine", questions: Sequence[str]) -> np.ndarray:
    """Raw gate rows for ``questions``, observed as the answerer observes them.

    The questions are encoded in batches first (one at a time, encoding was 97% of a refit),
    then each is observed with its vector, as :meth:`QAEngine.encode_ahead` does for ``eval``.
    """
    clean = [engine.clean(q)[0] for q in questions]
    vectors = np.asarray(engine.embedder.encode(clean), dtype=np.float32) if clean else None
    rows = []
    for i, q in enumerate(questions):
        obs = observe(engine, q, query_vector=None if vectors is None else vectors[i])
        if obs.evidence is None:  # nothing retrieved: the answerer declines anyway; a neutral row
            rows.append(np.zeros(obs.qvec.size + len(SCALARS)))
        else:
            rows.append(gate_features(obs.qvec, obs.evidence))
    return np.vstack(rows)


def _standardizer(x: np.ndarray, dim: int) -> tuple[np.ndarray, np.ndarray]:
    mean = x[:, dim:].mean(axis=0)
    scale = x[:, dim:].std(axis=0)
    return mean, np.where(scale > 1e-9, scale, 1.0)


def _newton(z: np.ndarray, y: np.ndarray, l2: float) -> tuple[np.ndarray, float]:
    """Weighted L2 logistic regression on standardized rows ``z``: (weights, bias)."""
    n, d = z.shape
    pos = max(float(y.sum()), 1.0)
    neg = max(float(n - y.sum()), 1.0)
    sw = np.where(y > 0, n / (2 * pos), n / (2 * neg))
    a = np.hstack([z, np.ones((n, 1))])
    theta = np.zeros(d + 1)
    reg = np.full(d + 1, l2)
    reg[-1] = 0.0
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(a @ theta)))
        grad = a.T @ (sw * (p - y)) + reg * theta
        hess = (a * (sw * p * (1 - p))[:, None]).T @ a + np.diag(reg) + 1e-8 * np.eye(d + 1)
        step = np.linalg.solve(hess, grad)
        theta -= step
        if np.abs(step).max() < 1e-7:
            break
    return theta[:-1], float(theta[-1])


def _fit_raw(x: np.ndarray, y: np.ndarray, dim: int, l2: float) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    mean, scale = _standardizer(x, dim)
    z = x.copy()
    z[:, dim:] = (z[:, dim:] - mean) / scale
    w, b = _newton(z, y, l2)
    return w, b, mean, scale


def fit_gate(
    x: np.ndarray, y: np.ndarray, fitted_on: list[str], *, dim: int = 384, l2: float = _L2,
    max_in_declined: float = 0.01, min_threshold: float = 0.6, seed: int = 0,
    max_out_admitted: float = 0.01, max_in_threshold: float = 0.2, known_sources: list[str] | None = None,
) -> Gate:
    """Fit on rows ``x`` (raw), labels ``y`` (1 = out of domain); calibrate the threshold out of fold."""
    y = y.astype(np.float64)
    rng = np.random.default_rng(seed)
    folds = rng.permutation(len(y)) % _FOLDS
    oof = np.zeros(len(y))
    for f in range(_FOLDS):
        train, test = folds != f, folds == f
        w, b, mean, scale = _fit_raw(x[train], y[train], dim, l2)
        zt = x[test].copy()
        zt[:, dim:] = (zt[:, dim:] - mean) / scale
        oof[test] = 1.0 / (1.0 + np.exp(-(zt @ w + b)))
    ins = np.sort(oof[y == 0])[::-1]
    allowed = int(np.floor(max_in_declined * len(ins)))
    # just above the (allowed+1)-th highest in-domain probability: at most ``allowed`` in-domain rows decline
    threshold = max(min_threshold, float(min(ins[allowed] + 1e-6, 1.0)) if len(ins) > allowed else min_threshold)
    outs = np.sort(oof[y == 1])
    admitted = int(np.floor(max_out_admitted * len(outs)))
    # below the (admitted+1)-th lowest out-of-domain probability: at most ``admitted`` out rows fall under it
    in_threshold = min(max_in_threshold, float(outs[admitted])) if len(outs) > admitted else 0.0
    in_threshold = min(in_threshold, threshold / 2)
    w, b, mean, scale = _fit_raw(x, y, dim, l2)
    manifest = GateModel(
        format=1, command="hwbot fit-gate", fitted_on=fitted_on, n_in=int((y == 0).sum()), n_out=int((y == 1).sum()),
        dim=dim, scalars=list(SCALARS), mean=[float(v) for v in mean], scale=[float(v) for v in scale], bias=b,
        threshold=threshold, oof_in_declined=float((oof[y == 0] >= threshold).mean()),
        oof_out_declined=float((oof[y == 1] >= threshold).mean()),
        in_threshold=in_threshold, oof_out_admitted=float((oof[y == 1] < in_threshold).mean()),
        known_sources=sorted(known_sources or []),
    )
    return Gate(manifest, w)


def never_gate(dim: int = 384) -> Gate:
    """A gate that never declines (the 'before' arm of the leave-one-batch-out comparison)."""
    manifest = GateModel(
        format=1, command="none", fitted_on=[], n_in=0, n_out=0, dim=dim, scalars=list(SCALARS),
        mean=[0.0] * len(SCALARS), scale=[1.0] * len(SCALARS), bias=-50.0, threshold=1.0,
        oof_in_declined=0.0, oof_out_declined=0.0,
    )
    return Gate(manifest, np.zeros(dim + len(SCALARS)))


def write_gate(gate: Gate, directory: Path) -> None:
    """Write ``weights.npy`` and ``manifest.json`` (with the fit date) into ``directory``."""
    write_weights_dir(directory, gate.manifest, gate.weights)

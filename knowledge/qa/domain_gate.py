"""Is this question about what the notes cover at all? A learned out-of-domain gate.

The similarity thresholds of :mod:`knowledge.qa.abstain` see only how *close* the best
evidence is, and a near-domain how-to ("install the NVIDIA GPU Operator on GKE", "nvidia-smi
says No devices were found", "writ me a Pallas kernel", "what year was the TPU announced")
shares the words GPU, TPU and CUDA with the notes and clears them. Word lists for such asks
were tried for several rounds and did not carry over to new writers, so the gate judges by
meaning instead: an L2-penalized logistic regression over the question's MiniLM embedding
(384-d) and the retrieval signals the answerer already computed for it (best cosine with a
chunk, a sentence, a heading and a question form; the BM25 score; the margin over the rest).

It declines only when confident: the probability threshold is calibrated on out-of-fold
scores of the training questions so that (almost) no in-domain training question would be
declined by the gate alone. The weights are data (``data/domain_gate/``: ``weights.npy`` and a
``manifest.json`` validated here), written by ``hwbot fit-gate``
(:mod:`knowledge.evaluation.fit_gate`), which also documents the training data.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, model_validator

from knowledge.qa.retrieval import Evidence
from knowledge.qa.scope import with_subject
from knowledge.qa.weights_dir import read_weights_dir

__all__ = ["SCALARS", "GateModel", "gate_features", "gate_model", "out_of_domain", "out_probability", "in_domain", "DEFAULT_DIR"]

DEFAULT_DIR = Path(__file__).with_name("data") / "domain_gate"

_MIN_CLAUSE_WORDS = 4  # a shorter asking clause leans on its context and is not judged alone
#: A chat preamble before the asking clause ("congrats on the launch! unrelated q:") is at most this
#: long. A situation told at length is what the clause asks about ("... NCCL all-reduce started
#: hanging after a kernel update. How do we debug this?"): when the gate is sure the whole is out of
#: the domain (:data:`_SURE_OUT`), the clause alone does not rescue it. In fq1-fq71 the clause
#: admitted 17 questions the whole declined, all 17 out of the domain (15-49 words before the
#: clause; the whole at 0.75-1.00), and no question in the domain; the tests' "Our job on a v4 chip
#: is 30% slower than on an A100 ... What could be causing it?" is in it, its whole at 0.68.
_MAX_PREAMBLE_WORDS = 12
_SURE_OUT = 0.9

#: the retrieval signals beside the embedding, in the weight vector's order after it
SCALARS = ("top_chunk", "top_sentence", "top_heading", "top_form", "top_bm25", "margin")


class GateModel(BaseModel):
    """The manifest: how the scalars are standardized, the bias, the threshold, and where the weights came from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: int
    command: str
    fitted_on: list[str]
    n_in: int
    n_out: int
    dim: int
    scalars: list[str]
    mean: list[float]
    scale: list[float]
    bias: float
    #: P(out of domain) at or above which the gate declines
    threshold: float
    #: out-of-fold rates on the training questions at ``threshold`` (for the record)
    oof_in_declined: float
    oof_out_declined: float
    #: P(out of domain) below which the gate is confident a question IS in the domain: it then
    #: overrules the cruder out-of-scope signals (intent prototypes, an off-topic asking clause).
    #: Set out of fold so that at most ~1 % of out-of-domain training questions fall below it;
    #: 0 never overrules.
    in_threshold: float = 0.0
    #: out-of-fold share of out-of-domain training questions below ``in_threshold`` (for the record)
    oof_out_admitted: float = 0.0
    #: the source ids of the notes the gate was fitted against. It learned what *those* notes
    #: cover, so a question whose best evidence lies only in notes a team added itself ("What is
    #: the Quokka reservation?") is not the gate's to judge; the evidence thresholds still are.
    #: Empty: every question is judged.
    known_sources: list[str] = []

    @model_validator(mode="after")
    def _consistent(self) -> "GateModel":
        if tuple(self.scalars) != SCALARS:
            raise ValueError(f"scalars must be exactly {', '.join(SCALARS)}")
        if len(self.mean) != len(SCALARS) or len(self.scale) != len(SCALARS) or min(self.scale) <= 0:
            raise ValueError("mean and scale need one entry per scalar, scales positive")
        if not 0.0 < self.threshold <= 1.0:
            raise ValueError("threshold must be a probability in (0, 1]")
        if not 0.0 <= self.in_threshold < self.threshold:
            raise ValueError("in_threshold must be a probability in [0, threshold)")
        return self


class Gate:
    """A loaded gate: the manifest and its weight vector (embedding weights, then scalar weights)."""

    def __init__(self, manifest: GateModel, weights: np.ndarray) -> None:
        if weights.shape != (manifest.dim + len(SCALARS),):
            raise ValueError(f"gate weights have shape {weights.shape}, expected ({manifest.dim + len(SCALARS)},)")
        self.manifest = manifest
        self.weights = weights.astype(np.float64)

    @classmethod
    def load(cls, directory: Path) -> "Gate":
        return cls(*read_weights_dir(directory, GateModel))

    def standardize(self, rows: np.ndarray) -> np.ndarray:
        """Raw feature rows (embedding, then raw scalars) with the scalars standardized."""
        out = np.array(rows, dtype=np.float64, copy=True)
        d = self.manifest.dim
        out[:, d:] = (out[:, d:] - np.asarray(self.manifest.mean)) / np.asarray(self.manifest.scale)
        return out

    def probability(self, rows: np.ndarray) -> np.ndarray:
        """P(out of domain) for raw feature rows."""
        z = self.standardize(np.atleast_2d(rows)) @ self.weights + self.manifest.bias
        return 1.0 / (1.0 + np.exp(-z))

    def judges(self, evidence: Evidence) -> bool:
        """False when the question's best evidence (by meaning and by words) lies only in notes the
        gate never saw: a team's own notes define their own domain."""
        known = self.manifest.known_sources
        return not known or not evidence.lead_sources or any(s in known for s in evidence.lead_sources)

    def p_out(self, qvec: np.ndarray, evidence: Evidence) -> float:
        """P(out of domain) for one question and its evidence."""
        return float(self.probability(gate_features(qvec, evidence))[0])

    def declines(self, qvec: np.ndarray, evidence: Evidence, p_out: float | None = None) -> bool:
        """Confidently out of the domain; ``p_out``: :meth:`p_out` when the caller has it already."""
        if not self.judges(evidence):
            return False
        return (self.p_out(qvec, evidence) if p_out is None else p_out) >= self.manifest.threshold

    def admits(self, qvec: np.ndarray, evidence: Evidence) -> bool:
        """Confidently in the domain (below :attr:`GateModel.in_threshold`)."""
        return self.p_out(qvec, evidence) < self.manifest.in_threshold


def gate_features(qvec: np.ndarray, evidence: Evidence) -> np.ndarray:
    """One raw feature row: the question embedding and the evidence's scalars (in :data:`SCALARS` order)."""
    scalars = [evidence.top_chunk, evidence.top_sentence, evidence.top_heading, evidence.top_form,
               evidence.top_bm25, evidence.margin]
    return np.concatenate([np.asarray(qvec, dtype=np.float64).ravel(), np.asarray(scalars, dtype=np.float64)])


#: a gate the leave-one-batch-out evaluation installs in place of the committed one (None: the committed one)
_override: list[Gate | None] = [None]


@lru_cache(maxsize=1)
def _committed() -> Gate | None:
    return Gate.load(DEFAULT_DIR) if (DEFAULT_DIR / "manifest.json").exists() else None


def gate_model() -> Gate | None:
    """The gate in use: an installed override (evaluation only), else the committed weights, else none."""
    return _override[0] if _override[0] is not None else _committed()


def install(gate: Gate | None) -> None:
    """Use ``gate`` instead of the committed weights (``None`` restores them). For evaluation runs."""
    _override[0] = gate


def _gate_for(qvec: np.ndarray, evidence: Evidence | None) -> Gate | None:
    """The gate that can judge this question: none without committed weights or evidence, or for a
    vector of another model's width."""
    gate = gate_model()
    if gate is None or evidence is None or np.asarray(qvec).size != gate.manifest.dim:
        return None
    return gate


def out_of_domain(
    qvec: np.ndarray, evidence: Evidence | None, clause: str = "", encode: Callable[[str], np.ndarray] | None = None,
    question: str = "",
) -> bool:
    """True when the gate is confident the question is outside what the notes cover.

    ``clause`` is the question's asking clause after any preamble ("congrats on the launch! unrelated
    q: do we have to rewrite it for TPUs?"): a chatty preamble pulls the whole question's embedding
    away from the notes, so when the clause differs (and is a real clause) and the gate is confident
    the clause is in the domain (judged with the same evidence), it is answered, unless more than a
    preamble comes before it in ``question`` and the gate is sure of the whole (:data:`_SURE_OUT`).
    ``encode`` embeds it."""
    gate = _gate_for(qvec, evidence)
    if gate is None or evidence is None:
        return False
    p_out = gate.p_out(qvec, evidence)  # once: the preamble rule below reads it too
    if not gate.declines(qvec, evidence, p_out):
        return False
    if encode is None or len(clause.split()) < _MIN_CLAUSE_WORDS:
        return True
    if len(question.split()) - len(clause.split()) > _MAX_PREAMBLE_WORDS and p_out >= _SURE_OUT:
        return True
    # the clause rescues the question only when the gate is confident the clause itself is in the
    # domain: "CUDA error: device-side assert in my loss, how do i fix it" has a clause that is merely
    # less far out than the whole, and stays declined. A clause that names no accelerator is judged
    # with the one the preamble named: "our TPU quota finally got approved! what should we watch for so
    # we don't burn money on it?" asks about TPUs (fq82-17, fq83-11), "... what's a good pizza place?" does not
    return not gate.admits(np.asarray(encode(with_subject(clause, question)), dtype=np.float32), evidence)


def out_probability(qvec: np.ndarray, evidence: Evidence | None) -> float:
    """The gate's probability that the question is out of the domain (0.0 without a gate)."""
    gate = _gate_for(qvec, evidence)
    if gate is None or evidence is None:
        return 0.0
    return gate.p_out(qvec, evidence)


def in_domain(qvec: np.ndarray, evidence: Evidence | None) -> bool:
    """True when the gate is confident the question is about what the notes cover.

    The intent prototypes and the off-topic-clause check judge scope from a handful of example
    sentences, and a chatty question ("honest question, not trolling: what actually is Pallas?",
    "debugging is killing me ... any tips?") can land nearer an out-of-scope prototype than an
    in-scope one. The gate was fitted on hundreds of labelled questions with the retrieval
    evidence beside the wording, so where it is confident, it overrules them."""
    gate = _gate_for(qvec, evidence)
    if gate is None or evidence is None:
        return False
    return gate.admits(qvec, evidence)

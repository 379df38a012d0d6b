"""The learned heads as data: one weight matrix (``heads.npy``) and a manifest that says what it is.

Each profile field has a multinomial logistic head over a clause vector (its values plus
``none``, "this clause does not state it"), and one more head reads the clause's modifier
(none, negation, hedge, plan, past, third party, question). All heads share one matrix
``(dim + 1) x classes`` (the last row is the bias), so scoring every clause of a message is
one matrix product and a softmax per head.

The manifest records what the weights are only valid with, and :func:`load_heads` checks
it before anything is used:

- the training data's sha256 (stale weights are refused: retrain with the one command);
- the weights file's sha256 (a file edited by hand is refused);
- the tuned layers' sha256 (``tuned_layers.npz``: the clause encoder is the shipped model with
  them laid over, see :mod:`.tuning`);
- the encoder's model id, dimension and probe vector: clause vectors from another model (or
  from the model without these tuned layers) would be read by heads that never saw them.

A refusal is :class:`HeadsUnavailable` with a one-line reason; callers fall back to the
rules and say so. Weights are never edited by hand: ``hwbot train-extractor`` rebuilds them.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from knowledge.recommend.learned.data import DATA_DIR, GATING_MODIFIERS, TRAINING_FILES, data_sha256

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

__all__ = [
    "HEADS_DIR", "OVERLAY_FILE", "TRAIN_COMMAND", "Head", "Thresholds", "HeadsManifest", "Heads", "HeadsUnavailable", "load_heads",
]

HEADS_DIR = DATA_DIR / "extractor"
TRAIN_COMMAND = "hwbot train-extractor"
#: 3: a field head's "not stated" class is ``not_stated`` (format 2 called it "none", the same
#: as custom_kernels' value none, and so never learned that value).
FORMAT = 3
#: The fine-tuned top layers of the encoder, laid over the shipped model (see :mod:`.tuning`).
OVERLAY_FILE = "tuned_layers.npz"
#: The encoder must reproduce the training-time probe vector this closely.
MIN_PROBE_COSINE = 0.9999


class HeadsUnavailable(Exception):
    """Why the learned heads cannot be used (one line); the rules still work."""


class Head(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    classes: tuple[str, ...] = Field(min_length=2)
    offset: int = Field(ge=0)

    @model_validator(mode="after")
    def _distinct(self) -> "Head":
        # two classes with one name cannot both be trained: labels map to the first of them
        if len(set(self.classes)) != len(self.classes):
            raise ValueError(f"head {self.name} names a class twice: {', '.join(self.classes)}")
        return self


class Thresholds(BaseModel):
    """Chosen on the validation split: ``high`` sets a field, ``medium`` asks to confirm it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    high: float = Field(gt=0, le=1.01)
    medium: float = Field(gt=0, le=1.01)


class HeadsManifest(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    format: int
    command: str
    model_id: str
    dim: int
    probe: tuple[float, ...]
    data_files: tuple[str, ...]
    data_sha256: str
    weights_sha256: str
    #: the tuned layers' file (:data:`OVERLAY_FILE`): the clause encoder is the model with it laid over
    overlay_sha256: str
    tuned_layers: int = Field(ge=1)
    epochs: int = Field(ge=1)
    heads: tuple[Head, ...]
    thresholds: dict[str, Thresholds]
    #: the modifier head's p(some modifier) at or above which a clause may not set a field
    modifier_gate: float = Field(gt=0, le=1.01)
    #: figures on the validation and test splits at training time (for people; never read back)
    figures: dict[str, dict[str, float]] = {}


class Heads:
    """Loaded, checked heads: probabilities per head for a batch of clause vectors."""

    def __init__(self, manifest: HeadsManifest, weights: "np.ndarray") -> None:
        self.manifest = manifest
        self.weights = weights
        self.by_name = {h.name: h for h in manifest.heads}

    def predict(self, vectors: "np.ndarray") -> dict[str, "np.ndarray"]:
        """head name -> (n, classes) probabilities for ``vectors`` (n, dim)."""
        import numpy as np

        logits = vectors @ self.weights[:-1] + self.weights[-1]
        out = {}
        for head in self.manifest.heads:
            part = logits[:, head.offset: head.offset + len(head.classes)]
            part = np.exp(part - part.max(axis=1, keepdims=True))
            out[head.name] = part / part.sum(axis=1, keepdims=True)
        return out


    def gate_mass(self, probs: dict[str, "np.ndarray"], kinds: tuple[str, ...] = GATING_MODIFIERS) -> "np.ndarray":
        """Per clause, the modifier head's probability of one of ``kinds``: what the gate
        (``manifest.modifier_gate``) is compared with, at training time and when reading."""
        head = self.by_name["modifier"]
        return probs["modifier"][:, [head.classes.index(k) for k in kinds]].sum(axis=1)


def _cosine(a: "np.ndarray", b: "np.ndarray") -> float:
    import numpy as np

    return float(np.dot(a, b) / max(float(np.linalg.norm(a) * np.linalg.norm(b)), 1e-12))


def load_heads(
    directory: Path = HEADS_DIR, *, model_id: str, probe: "np.ndarray",
    data_files: tuple[Path, ...] = TRAINING_FILES,
) -> Heads:
    """The committed heads, checked against the data, the weights file and the encoder in use."""
    import numpy as np

    rebuild = f"rebuild them with '{TRAIN_COMMAND}'"
    try:
        manifest = HeadsManifest.model_validate_json((directory / "manifest.json").read_bytes())
        raw = (directory / "heads.npy").read_bytes()
    except FileNotFoundError as exc:
        raise HeadsUnavailable(f"the learned heads are missing ({Path(str(exc.filename)).name}); {rebuild}") from None
    except (OSError, ValidationError, ValueError):
        raise HeadsUnavailable(f"the learned heads' manifest is unreadable; {rebuild}") from None
    if manifest.format != FORMAT:
        raise HeadsUnavailable(f"the learned heads are format {manifest.format}, not {FORMAT}; {rebuild}")
    if hashlib.sha256(raw).hexdigest() != manifest.weights_sha256:
        raise HeadsUnavailable(f"heads.npy is not the file its manifest records; {rebuild}")
    try:
        overlay = (directory / OVERLAY_FILE).read_bytes()
    except OSError:
        raise HeadsUnavailable(f"the learned heads' tuned layers are missing ({OVERLAY_FILE}); {rebuild}") from None
    if hashlib.sha256(overlay).hexdigest() != manifest.overlay_sha256:
        raise HeadsUnavailable(f"{OVERLAY_FILE} is not the file the heads were trained with; {rebuild}")
    try:
        data_hash = data_sha256(data_files)
    except OSError:
        raise HeadsUnavailable(f"the labelled data the learned heads were trained on is missing; {rebuild}") from None
    if data_hash != manifest.data_sha256:
        raise HeadsUnavailable(f"the learned heads were trained on other labelled data than there is now; {rebuild}")
    if model_id != manifest.model_id or probe.shape != (manifest.dim,) or _cosine(probe, np.asarray(manifest.probe)) < MIN_PROBE_COSINE:
        raise HeadsUnavailable(f"the learned heads were trained on another embedding model; {rebuild}")
    weights = np.load(directory / "heads.npy", allow_pickle=False)
    width = sum(len(h.classes) for h in manifest.heads)
    if weights.shape != (manifest.dim + 1, width):
        raise HeadsUnavailable(f"heads.npy has shape {weights.shape}, not {(manifest.dim + 1, width)}; {rebuild}")
    return Heads(manifest, weights.astype(np.float32))


def write_heads(directory: Path, manifest: HeadsManifest, weights: "np.ndarray") -> None:
    """Write weights and manifest (the trainer's only output)."""
    import io

    import numpy as np

    directory.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    np.save(buf, weights.astype(np.float32), allow_pickle=False)
    raw = buf.getvalue()
    (directory / "heads.npy").write_bytes(raw)
    final = manifest.model_copy(update={"weights_sha256": hashlib.sha256(raw).hexdigest()})
    (directory / "manifest.json").write_text(json.dumps(final.model_dump(), indent=1) + "\n", encoding="utf-8")

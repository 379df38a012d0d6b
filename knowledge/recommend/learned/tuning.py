"""Fine-tuning the encoder's top layers together with the heads (training time only: torch).

Linear heads on the frozen sentence vectors plateaued: sentence embeddings of all-MiniLM
are made to say what a text is *about*, and "we swap the decoder every week" and "the
decoder has not changed in a year" are about the same thing. Letting the top
:data:`TUNED_LAYERS` transformer layers learn, with every head's loss at once, is what
separates them (a leave-one-batch-out on two writers' batches: the heads alone went from
about 0.08 of the stated fields to about 0.7 at the same precision).

The lower layers stay the shipped model's own; only the tuned layers are written out (an
``.npz`` overlay of a few MB, see :func:`indexer.embedder.apply_overlay`). Their outputs are
pooled and normalized exactly as the query encoder does, so the heads read the vectors the
ONNX export of the tuned model gives at run time. Deterministic: fixed seed, fixed thread
count, fixed batch order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from indexer.embedder import Embedder

__all__ = ["TUNED_LAYERS", "EPOCHS", "Tuned", "fine_tune"]

TUNED_LAYERS = 2
EPOCHS = 4
BATCH = 32
SEED = 0
THREADS = 2
LR_LAYERS = 5e-5
LR_HEADS = 2e-3
#: class weights count^-BALANCE: rare answers are not drowned by "not stated", nor over-trusted
BALANCE = 0.5
#: the heads read unit vectors times this (folded into their weights when written): on unit
#: vectors alone, logits are too small for the few epochs to make confident heads
SCALE = 20.0
#: a target of -1 is "not labelled for this head" (messages carry no modifier label)
IGNORE = -1


@dataclass(frozen=True)
class Tuned:
    """What fine-tuning makes: the tuned layers (state-dict name -> fp16) and the heads' weights."""

    overlay: dict[str, np.ndarray]
    #: (dim + 1, width): every head's columns side by side, the bias last, as :class:`.heads.Heads` reads them
    weights: np.ndarray


def _class_weights(y: np.ndarray, classes: int) -> np.ndarray:
    labelled = y[y != IGNORE]
    counts = np.bincount(labelled, minlength=classes).astype(np.float64)
    w = np.maximum(counts, 1.0) ** -BALANCE
    return w * counts.sum() / max(float((w * counts).sum()), 1e-12)


def fine_tune(
    embedder: "Embedder", texts: Sequence[str], targets: Sequence[np.ndarray], widths: Sequence[int],
    *, epochs: int = EPOCHS,
) -> Tuned:
    """Train the top layers and one softmax head per entry of ``targets`` (class ids, :data:`IGNORE` to skip)."""
    import torch

    from indexer.top_layers import TopLayers, seeded

    with seeded(SEED, THREADS) as rng:
        tuner = TopLayers(embedder, TUNED_LAYERS)
        head = torch.nn.Linear(tuner.dim, int(sum(widths)))
        offsets = np.cumsum([0, *widths])
        class_weights = [torch.tensor(_class_weights(t, w), dtype=torch.float32) for t, w in zip(targets, widths)]
        # the frozen layers run once: their outputs are the training inputs of the tuned ones
        batches = [(hidden, mask, [torch.tensor(t[rows], dtype=torch.long) for t in targets])
                   for hidden, mask, rows in tuner.frozen(texts, BATCH)]
        opt = torch.optim.AdamW(
            [{"params": tuner.top.parameters(), "lr": LR_LAYERS}, {"params": head.parameters(), "lr": LR_HEADS}],
            weight_decay=0.01,
        )
        tuner.top.train()
        for _ in range(epochs):
            rng.shuffle(batches)
            for hidden, mask, ys in batches:
                logits = head(tuner.pooled(hidden, mask) * SCALE)
                loss = sum(
                    torch.nn.functional.cross_entropy(logits[:, offsets[k]: offsets[k + 1]], y, weight=class_weights[k],
                                                      ignore_index=IGNORE)
                    for k, y in enumerate(ys) if bool((y != IGNORE).any())
                )
                opt.zero_grad()
                loss.backward()  # type: ignore[union-attr]
                opt.step()
        tuner.top.eval()
        weights = np.vstack([head.weight.detach().numpy().T * SCALE, head.bias.detach().numpy()[None, :]]).astype(np.float32)
        return Tuned(overlay=tuner.overlay(), weights=weights)

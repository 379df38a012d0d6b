"""The lead encoder: the question side of the model fine-tuned to land on the sentence that answers it.

The lead model (:mod:`knowledge.qa.lead_model`) ranked candidates by signals that say what a
sentence is *about*: its cosine with the question, shared rare words, its nearest question
form. Ten outside writers' questions showed that this finds the topic and then, a third of
the time, leads with a neighbour of the sentence that answers. A linear reranker over those
signals was saturated.

This learns the missing signal from labelled pairs: every question form of the notes says
which sentence answers it, and every measured outside question says it through its key terms
(a sentence holding all of them answers it). The top :data:`TUNED_LAYERS` layers of the
shipped model are trained so that a question's vector is nearest, among all the notes'
sentences, to the ones that answer it. The sentences keep the vectors the index already holds
(the shipped model's), so nothing in the index changes: only the question is encoded once
more, by the tuned model's ONNX export. Held out writer by writer (fq6-fq15, trained on the
forms and the other nine writers), the tuned cosine alone put an answering sentence first
for 155 of 224 questions against 118 for the committed lead model.

Training is torch (build time only), deterministic, and shipped as an overlay like the
extractor's (``data/lead_encoder/tuned_layers.npz``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from indexer.embedder import Embedder
    from indexer.top_layers import TopLayers

__all__ = ["LEAD_OVERLAY", "TUNED_LAYERS", "EPOCHS", "LeadExample", "fine_tune_lead"]

LEAD_OVERLAY = Path(__file__).with_name("data") / "lead_encoder" / "tuned_layers.npz"

TUNED_LAYERS = 2
EPOCHS = 8
BATCH = 32
SEED = 0
THREADS = 2
LR = 5e-5
#: the softmax over all sentences reads cosines times this: cosines alone are too flat to learn from
TEMPERATURE = 20.0


@dataclass(frozen=True)
class LeadExample:
    """A question and the rows (of the sentence matrix trained against) that answer it."""

    text: str
    targets: tuple[int, ...]


def fine_tune_lead(
    embedder: "Embedder", sentences: np.ndarray, examples: Sequence[LeadExample], *, epochs: int = EPOCHS,
) -> "TopLayers":
    """The tuned top layers: each example's vector pulled towards its answering sentences'
    (fixed) vectors and away from every other sentence's; several answering rows share the target."""
    import torch

    from indexer.top_layers import TopLayers, seeded

    if not examples or sentences.ndim != 2 or not len(sentences):
        raise ValueError("the lead encoder needs sentences and labelled questions to learn from")
    fixed = torch.tensor(np.asarray(sentences, dtype=np.float32))
    target = np.zeros((len(examples), len(sentences)), dtype=np.float32)
    for i, ex in enumerate(examples):
        target[i, list(ex.targets)] = 1.0 / len(ex.targets)
    with seeded(SEED, THREADS) as rng:
        tuner = TopLayers(embedder, TUNED_LAYERS)
        batches = [(hidden, mask, torch.tensor(target[rows])) for hidden, mask, rows in
                   tuner.frozen([ex.text for ex in examples], BATCH)]
        opt = torch.optim.AdamW(tuner.top.parameters(), lr=LR, weight_decay=0.01)
        tuner.top.train()
        for _ in range(epochs):
            rng.shuffle(batches)
            for hidden, mask, y in batches:
                logits = tuner.pooled(hidden, mask) @ fixed.T * TEMPERATURE
                loss = -(y * torch.log_softmax(logits, dim=-1)).sum(dim=-1).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        tuner.top.eval()
    return tuner

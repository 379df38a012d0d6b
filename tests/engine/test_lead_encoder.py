"""The lead encoder (issue 19): a question side fine-tuned to land on the sentence that answers it.

Real model, real index, real ONNX export (once per session into the session's model cache).
The committed overlay must be the one the lead model's weights were fitted with; its export
must compute what the tuned torch model does; training must be deterministic and must learn.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from indexer.embedder import Embedder
from knowledge.index import lead_encoder
from knowledge.qa.lead_model import lead_model
from knowledge.qa.lead_tuning import LEAD_OVERLAY, LeadExample, fine_tune_lead
from knowledge.qa.service import QAEngine

QUESTIONS = ["why does my pod sit at 30% utilization?", "is bf16 going to need loss scaling on tpu?"]


def test_the_lead_model_was_fitted_with_the_committed_lead_encoder() -> None:
    model = lead_model()
    assert model is not None
    assert model.lead_encoder_sha256 == hashlib.sha256(LEAD_OVERLAY.read_bytes()).hexdigest(), (
        "the lead encoder changed without refitting the lead model: run `hwbot fit-leads`"
    )
    assert model.weights["tuned"] > 0  # the tuned cosine counts for the sentence it points at


def test_the_onnx_lead_encoder_is_the_tuned_model(built_index: Path, embedder: Embedder) -> None:
    onnx = lead_encoder(built_index).encode(QUESTIONS)
    tuned = Embedder(overlay=LEAD_OVERLAY).encode(QUESTIONS, progress=False)
    plain = embedder.encode(QUESTIONS, progress=False)
    assert np.min(np.sum(onnx * tuned, axis=1)) > 0.99999
    assert np.max(np.sum(onnx * plain, axis=1)) < 0.999  # the overlay changed what the vectors say


def test_the_engine_ranks_leads_with_the_index_s_lead_encoder(qa: QAEngine) -> None:
    vec = qa.lead_vector(QUESTIONS[0])
    assert vec.shape == (qa.store.sentence_vectors.shape[1],) and abs(float(vec @ vec) - 1.0) < 1e-4
    answer = qa.ask("do we need loss scaling with bf16 on a tpu?")
    assert not answer.declined and "bfloat16" in answer.sentences[0].text, answer.answer


def test_fine_tuning_the_lead_encoder_is_deterministic_and_learns(qa: QAEngine, embedder: Embedder) -> None:
    # ten sentences of the notes, each with its forms: after two epochs the forms are nearer
    # their own sentence than before, and a second run gives the same bytes
    entries = [e for e in qa.store.forms if e.lead][:10]
    sentences = embedder.encode([e.sentence for e in entries], progress=False)
    examples = [LeadExample(form, (i,)) for i, e in enumerate(entries) for form in e.forms]
    first = fine_tune_lead(embedder, sentences, examples, epochs=2)
    second = fine_tune_lead(embedder, sentences, examples, epochs=2)
    a, b = first.overlay(), second.overlay()
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)

    def right(vectors: np.ndarray) -> int:
        return int(sum(int(np.argmax(sentences @ v)) == ex.targets[0] for v, ex in zip(vectors, examples)))

    before = right(embedder.encode([ex.text for ex in examples], progress=False))
    after = right(first.encode([ex.text for ex in examples]))
    assert after > before, (before, after, len(examples))

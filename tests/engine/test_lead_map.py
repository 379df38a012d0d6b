"""The lead map (issue 19): a question's vector turned towards the sentence that answers it.

Real model, real index. The committed map must be the one the lead model's weights were
fitted with; fitting must be deterministic and must learn; the answer path must use it.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from knowledge.qa.lead_map import LEAD_MAP, LeadExample, fit_lead_map, lead_direction, lead_map
from knowledge.qa.lead_model import lead_model
from knowledge.qa.service import QAEngine


def test_the_lead_model_was_fitted_with_the_committed_lead_map() -> None:
    model = lead_model()
    assert model is not None
    assert model.lead_map_sha256 == hashlib.sha256(LEAD_MAP.read_bytes()).hexdigest(), (
        "the lead map changed without refitting the lead model: run `hwbot fit-leads`"
    )
    assert model.weights["tuned"] > 0  # the turned cosine counts for the sentence it points at
    w = lead_map()
    assert w is not None and w.shape == (384, 384) and np.all(np.isfinite(w))


def test_the_direction_is_a_unit_vector_and_the_identity_changes_nothing(qa: QAEngine) -> None:
    q = qa.encode_query("is bf16 going to need loss scaling on tpu?")
    turned = lead_direction(q)
    assert abs(float(turned @ turned) - 1.0) < 1e-5 and float(turned @ q) < 0.9999  # the map turns it
    assert np.allclose(lead_direction(q, np.eye(384, dtype=np.float32)), q, atol=1e-6)
    assert lead_direction(q[:10], np.eye(384, dtype=np.float32)) is not None  # another model's size: left as is


def test_fitting_the_lead_map_is_deterministic_and_learns(qa: QAEngine) -> None:
    # twenty sentences of the notes with their forms: after the fit more forms land nearest
    # their own sentence than before, and a second fit gives the same matrix
    store = qa.store
    entries = [e for e in store.forms if e.lead][:20]
    sentences = np.stack([qa.encode_query(e.sentence) for e in entries])
    examples = [LeadExample(np.asarray(store.form_vectors[e.row + j], dtype=np.float32), (i,))
                for i, e in enumerate(entries) for j in range(len(e.forms))]
    first = fit_lead_map(sentences, examples)
    assert np.array_equal(first, fit_lead_map(sentences, examples))

    def right(w: np.ndarray) -> int:
        return sum(int(np.argmax(sentences @ lead_direction(ex.vector, w))) == ex.targets[0] for ex in examples)

    assert right(first) > right(np.eye(sentences.shape[1], dtype=np.float32)), len(examples)
    with pytest.raises(ValueError, match="learn from"):
        fit_lead_map(sentences, [])


def test_the_answer_leads_with_the_sentence_the_map_points_at(qa: QAEngine) -> None:
    answer = qa.ask("do we need loss scaling with bf16 on a tpu?")
    assert not answer.declined and "bfloat16" in answer.sentences[0].text, answer.answer

"""The ask-type model's data: its manifest is validated, its weights' shape checked, and a fit
round-trips through the files it writes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError

from knowledge.evaluation.fit_asks import fit_ask_model, load_labelled_asks, write_ask_model
from knowledge.qa.ask_model import AskModel, AskModelManifest


def _manifest(**over: object) -> dict[str, object]:
    base: dict[str, object] = dict(format=1, command="hwbot fit-asks", fitted_on=["a.jsonl"], n=4, dim=3, types=["why", "yes_no"])
    return {**base, **over}


def test_a_manifest_names_known_types_once() -> None:
    AskModelManifest.model_validate(_manifest())
    with pytest.raises(ValidationError, match="not among the answer types"):
        AskModelManifest.model_validate(_manifest(types=["why", "poem"]))
    with pytest.raises(ValidationError, match="each once"):
        AskModelManifest.model_validate(_manifest(types=["why", "why"]))
    with pytest.raises(ValidationError):
        AskModelManifest.model_validate(_manifest(extra_field=1))


def test_weights_of_the_wrong_shape_are_refused() -> None:
    m = AskModelManifest.model_validate(_manifest())
    with pytest.raises(ValueError, match="expected \\(2, 7\\)"):
        AskModel(m, np.zeros((2, 6)))


def test_a_fit_separates_types_and_round_trips(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    centres = {"why": np.eye(6)[0], "how": np.eye(6)[3]}
    labels = ["why", "how"] * 20
    x = np.vstack([centres[t] + 0.05 * rng.standard_normal(6) for t in labels])
    model = fit_ask_model(x, labels, ["synthetic"])
    assert model.manifest.types == ["how", "why"] and model.manifest.dim == 3
    write_ask_model(model, tmp_path)
    loaded = AskModel.load(tmp_path)
    assert json.loads((tmp_path / "manifest.json").read_text())["n"] == 40
    assert loaded.predict(centres["why"][:3], centres["why"][3:]) == "why"
    assert loaded.predict(centres["how"][:3], centres["how"][3:]) == "how"
    p = loaded.probabilities(x)
    assert np.allclose(p.sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="at least two"):
        fit_ask_model(x[:2], ["why", "why"], [])


def test_the_training_questions_are_the_measured_batches_single_asks() -> None:
    asks = load_labelled_asks()
    assert len(asks) >= 200 and {a.batch for a in asks} >= {"fq6", "fq17"}
    assert {a.label for a in asks} <= {"choice", "diagnose", "does_matter", "how", "how_to_fix", "list", "what_is", "which_one", "why", "yes_no"}

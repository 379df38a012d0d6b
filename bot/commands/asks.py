"""``hwbot fit-asks``: fit the ask-type model, or measure it leave-one-batch-out.

Fitting writes ``knowledge/qa/data/ask_model/`` from the measured question batches
(:mod:`knowledge.evaluation.fit_asks`). ``--lobo`` never touches the committed weights: for each
measured batch in turn it fits on the others, compares the typing with the writer's labels
(before: cues and intent prototypes; after: the model), and answers the held-out batch end to
end through the same path as ``hwbot eval --fresh`` with and without that model.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import numpy as np

from common.settings import HwbotSettings

if TYPE_CHECKING:  # pragma: no cover
    from knowledge.qa.ask_model import AskModel

__all__ = ["run_fit_asks"]


def run_fit_asks(settings: HwbotSettings, *, lobo: bool) -> None:
    from bot.commands.eval import _score_questions
    from bot.engines import get_engine
    from knowledge.evaluation.fit_asks import MEASURED, feature_rows, fit_ask_model, load_labelled_asks, write_ask_model
    from knowledge.evaluation.fresh import FreshQuestion, load_fresh_batch
    from knowledge.qa import ask_model

    engine = get_engine(settings)
    asks = load_labelled_asks()
    x, before, keep, decides = feature_rows(asks, engine.encode_query, lambda q, v: engine.intents.classify(q, v).name)
    mask = np.asarray(keep, dtype=bool)
    by_model = np.asarray(decides, dtype=bool)
    labels = np.asarray([a.label for a in asks], dtype=object)
    batches = np.asarray([a.batch for a in asks], dtype=object)
    names = sorted(set(batches[mask]))

    def fit(without: str = "") -> AskModel:
        rows = mask & (batches != without)
        return fit_ask_model(x[rows], list(labels[rows]), [f"{n}.jsonl" for n in names if n != without])

    if not lobo:
        model = fit()
        agree, was = _held_out(x, labels, batches, mask, by_model, np.asarray(before, dtype=object), {n: fit(n) for n in names})
        model.manifest = model.manifest.model_copy(update={"held_out_agree": agree, "held_out_before": was})
        write_ask_model(model, ask_model.DEFAULT_DIR)
        print(f"wrote {ask_model.DEFAULT_DIR} ({model.manifest.n} questions, {len(model.manifest.types)} types; "
              f"held out by batch, agreeing with the writers: {agree} of {int(mask.sum())}, cues and prototypes {was})")
        return
    print("held out | typed as the writer (before -> after) | first sentence | anywhere, cited | parts | false refusals")
    for name in names:
        model = fit(name)
        agree, was = _held_out(x, labels, batches, mask, by_model, np.asarray(before, dtype=object), {name: model})
        items = [i for i in load_fresh_batch(MEASURED / f"{name}.jsonl") if isinstance(i, FreshQuestion)]
        arms = []
        for installed, off in ((None, True), (model, False)):
            ask_model.install(installed, off=off)
            try:
                arms.append(json.loads(_score_questions(items, settings)[1]))
            finally:
                ask_model.install(None)
        cells = [f"{arms[0][k]['k']} -> {arms[1][k]['k']} of {arms[1][k]['n']}"
                 for k in ("first_sentence", "anywhere_cited", "parts_answered", "false_refusal")]
        print(f"{name} | {was} -> {agree} of {int((mask & (batches == name)).sum())} | " + " | ".join(cells))


def _held_out(
    x: np.ndarray, labels: np.ndarray, batches: np.ndarray, mask: np.ndarray, by_model: np.ndarray, before: np.ndarray,
    models: dict[str, AskModel],
) -> tuple[int, int]:
    """Agreement with the writers' labels of each batch named in ``models``, typed as the answerer
    types it with that batch's model (fitted without it) where the model decides (``by_model``) and
    by its cue elsewhere; and, for comparison, by the cues and intent prototypes (``before``)."""
    agree = was = 0
    half = x.shape[1] // 2
    for name, model in models.items():
        rows = mask & (batches == name)
        got = np.asarray([model.predict(r[:half], r[half:]) if m else b for r, m, b in zip(x[rows], by_model[rows], before[rows])],
                         dtype=object)
        agree += int((got == labels[rows]).sum())
        was += int((before[rows] == labels[rows]).sum())
    return agree, was

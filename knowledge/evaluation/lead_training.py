"""``hwbot fit-leads``: train the lead encoder, then fit the lead model on out-of-fold signals.

Two learned parts rank an answer's lead (:mod:`knowledge.qa.lead_model`): the lead encoder
(:mod:`knowledge.qa.lead_tuning`) and the conditional logit that weighs its cosine with every
other signal. The logit must not learn the encoder's weight from questions the encoder was
trained on (there it is nearly always right), so the fit is crossed: the labelled questions are
split in two folds (a form by its position among its sentence's forms, an outside question by
its batch), an encoder trained on one fold encodes the other, and the logit is fitted on those
out-of-fold cosines. The encoder that ships is then trained on everything.

Labelled questions: every question form of a sentence that may lead (its sentence answers it),
and every measured outside question (``data/measured/fq*.jsonl``, single asks, in the domain)
whose key terms are all in one to :data:`MAX_ANSWERING` sentences of the notes.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from knowledge.evaluation.fit_leads import LeadGroup, collect_groups, fit_lead_model, question_groups, top1
from knowledge.evaluation.fresh import FreshQuestion, has_term, load_fresh_batch
from knowledge.qa.asks import split_asks
from knowledge.qa.lead_model import LeadModel
from knowledge.qa.lead_tuning import LeadExample, fine_tune_lead
from knowledge.qa.service import QAEngine

if TYPE_CHECKING:  # pragma: no cover
    from indexer.embedder import Embedder

__all__ = ["MEASURED_QUESTIONS", "LeadData", "LeadFit", "lead_data", "fit_leads"]

MEASURED_QUESTIONS = tuple(sorted((Path(__file__).resolve().parent / "data" / "measured").glob("fq*.jsonl")))
#: key terms found in more sentences than this are too common to say which one answers
MAX_ANSWERING = 4
#: an outside writer's question counts this many times a form (forms outnumber them about four to one)
QUESTION_WEIGHT = 2
FOLDS = 2


@dataclass(frozen=True)
class LeadData:
    """The notes' sentences (with the index's vectors) and the labelled questions, each with its fold."""

    sentences: list[str]
    vectors: np.ndarray
    examples: list[LeadExample]
    folds: list[int]
    #: per example: its row in the store's form vectors, or -1 for an outside question
    form_rows: list[int]
    #: the outside questions, by batch file stem (for the logit's question groups)
    questions: dict[str, list[FreshQuestion]]


@dataclass(frozen=True)
class LeadFit:
    model: LeadModel
    overlay: dict[str, np.ndarray]
    report: list[str]


def _asked(engine: QAEngine, item: FreshQuestion) -> str | None:
    """The question as the answerer asks it, when it is one ask."""
    asks, _, _ = split_asks(engine.clean(item.question)[0])
    return asks[0].text if len(asks) == 1 else None


def lead_data(engine: QAEngine, batch_files: tuple[Path, ...] = MEASURED_QUESTIONS) -> LeadData:
    store = engine.store
    vectors: dict[str, np.ndarray] = {}
    for chunk in store.chunks:
        for i, text in enumerate(chunk.sentences):
            vectors.setdefault(text, np.asarray(store.sentence_vectors[chunk.sentence_start + i], dtype=np.float32))
    sentences = list(vectors)
    index = {t: i for i, t in enumerate(sentences)}
    examples: list[LeadExample] = []
    folds: list[int] = []
    rows: list[int] = []
    for entry in store.forms:
        if entry.lead and entry.sentence in index:
            for j, form in enumerate(entry.forms):
                examples.append(LeadExample(form, (index[entry.sentence],)))
                folds.append(j % FOLDS)
                rows.append(entry.row + j)
    questions: dict[str, list[FreshQuestion]] = {}
    for n, path in enumerate(batch_files):
        items = [i for i in load_fresh_batch(path) if isinstance(i, FreshQuestion)]
        questions[path.stem] = items
        for item in items:
            if item.domain != "in" or not item.terms or item.parts:
                continue
            asked = _asked(engine, item)
            targets = tuple(i for i, s in enumerate(sentences) if all(has_term(s, t) for t in item.terms))
            if asked is None or not 0 < len(targets) <= MAX_ANSWERING:
                continue
            for _ in range(QUESTION_WEIGHT):
                examples.append(LeadExample(asked, targets))
                folds.append(n % FOLDS)
                rows.append(-1)
    return LeadData(sentences, np.stack([vectors[s] for s in sentences]), examples, folds, rows, questions)


def fit_leads(engine: QAEngine, embedder: "Embedder", batch_files: tuple[Path, ...] = MEASURED_QUESTIONS) -> LeadFit:
    """The shipped encoder's overlay and the lead model fitted on out-of-fold cosines, with a report."""
    data = lead_data(engine, batch_files)
    by_row: dict[int, np.ndarray] = {}
    by_text: dict[str, np.ndarray] = {}
    for fold in range(FOLDS):
        trained = fine_tune_lead(embedder, data.vectors, [e for e, f in zip(data.examples, data.folds) if f != fold])
        held = [(e, r) for e, f, r in zip(data.examples, data.folds, data.form_rows) if f == fold]
        vecs = trained.encode([e.text for e, _ in held])
        for (example, row), vec in zip(held, vecs):
            if row >= 0:
                by_row[row] = vec
            else:
                by_text[example.text] = vec

    def lead_of_text(text: str) -> np.ndarray:
        return by_text[text]

    forms, _ = collect_groups(engine, lead=lambda row: by_row[row])
    asked: dict[str, list[LeadGroup]] = {}
    for stem, items in data.questions.items():
        usable = [i for i in items if (t := _asked(engine, i)) is not None and t in by_text]
        asked[stem] = question_groups(engine, usable, weight=float(QUESTION_WEIGHT), lead=lead_of_text)
    outside = [g for groups in asked.values() for g in groups]
    report = [f"{len(data.examples)} labelled questions for the encoder ({len(forms)} forms, "
              f"{sum(1 for r in data.form_rows if r < 0) // QUESTION_WEIGHT} outside questions of {len(asked)} batches)"]
    right = [0, 0, 0]
    for stem, groups in asked.items():  # the logit held out batch by batch (the cosines are out of fold already)
        without = fit_lead_model(forms + [g for s, gs in asked.items() if s != stem for g in gs])
        right[0] += sum(g.is_right(int(np.argmax(g.relevance))) for g in groups)
        right[1] += round(top1(groups, without) * len(groups))
        right[2] += len(groups)
    report.append(f"outside questions, each batch held out of the logit: right lead first by relevance {right[0]}/{right[2]}, "
                  f"by the model {right[1]}/{right[2]}")
    final = fine_tune_lead(embedder, data.vectors, data.examples)
    overlay = final.overlay()
    return LeadFit(
        model=fit_lead_model(forms + outside, fitted_on=f"{len(forms)} question forms (own form left out) and {len(outside)} "
                             f"measured outside questions, with out-of-fold lead encoder cosines",
                             encoder_sha256=_overlay_sha256(overlay)),
        overlay=overlay,
        report=report,
    )


def _overlay_sha256(overlay: dict[str, np.ndarray]) -> str:
    """The sha256 of the overlay file these tensors make (:func:`indexer.top_layers.write_overlay` is deterministic)."""
    import io

    from indexer.top_layers import write_overlay

    buf = io.BytesIO()
    write_overlay(buf, overlay)
    return hashlib.sha256(buf.getvalue()).hexdigest()

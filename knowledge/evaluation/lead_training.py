"""``hwbot fit-leads``: fit the lead map, then the lead model on out-of-fold signals.

Two learned parts rank an answer's lead (:mod:`knowledge.qa.lead_model`): the lead map
(:mod:`knowledge.qa.lead_map`) and the conditional logit that weighs its cosine with every
other signal. The logit must not learn the map's weight from questions the map was fitted on
(there it is nearly always right), so the fit is crossed: the labelled questions are split in
:data:`FOLDS` folds (an outside question by its batch, a form spread over them), a map fitted
without a fold turns that fold's questions, and the logit is fitted on those out-of-fold
cosines, each from a map that saw nine tenths of the data, as the shipped one sees new
writers. The map that ships is then fitted on everything.

Labelled questions: every question form of a sentence that may lead (its sentence answers it),
and every measured outside question (``data/measured/fq*.jsonl``, single asks, in the domain)
whose key terms are all in one to :data:`MAX_ANSWERING` sentences of the notes.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from knowledge.evaluation.fit_leads import LeadGroup, collect_groups, fit_lead_model, question_groups, top1
from knowledge.evaluation.fresh import FreshQuestion, has_term, load_fresh_batch
from knowledge.qa.lead_map import LeadExample, fit_lead_map, lead_direction
from knowledge.qa.lead_model import LeadModel
from knowledge.qa.service import QAEngine
from knowledge.qa.splitting import split_asks

__all__ = ["MEASURED_QUESTIONS", "LeadData", "LeadFit", "lead_data", "fit_leads", "map_sha256"]

#: The measured outside batches the map and the logit learn from: every batch in ``measured/``
#: (fq6 on), in the order of their numbers. Until 2026-12-06 only fq6-fq15 were read: refitted
#: with fq17 alone, the map had led one in-house comparison ("more forgiving of a slow data
#: pipeline, GPU or TPU?") with the pipeline fixes. With 32 batches (fq6-fq40) it led the six
#: later batches fq41-fq46, which neither fit had seen, better than the fit on fq6-fq15: first
#: sentences 89 -> 91 of 168, key terms anywhere 126 both (``docs/quality.md``).
MEASURED_QUESTIONS = tuple(
    sorted((Path(__file__).resolve().parent / "data" / "measured").glob("fq*.jsonl"), key=lambda p: int(p.stem[2:]))
)
#: key terms found in more sentences than this are too common to say which one answers
MAX_ANSWERING = 4
#: an outside writer's question counts this many times a form (forms outnumber them about four to one)
QUESTION_WEIGHT = 2
FOLDS = 10


@dataclass(frozen=True)
class LeadData:
    """The notes' sentences (with the index's vectors) and the labelled questions, each with its fold."""

    sentences: list[str]
    vectors: np.ndarray
    examples: list[LeadExample]
    folds: list[int]
    #: per example: its row in the store's form vectors, or -1 for an outside question
    form_rows: list[int]
    #: per example: the question as asked (a form, or an outside question's single ask)
    texts: list[str]
    #: the outside questions, by batch file stem (for the logit's question groups)
    questions: dict[str, list[FreshQuestion]]


@dataclass(frozen=True)
class LeadFit:
    model: LeadModel
    map: np.ndarray
    report: list[str]


def _asked(engine: QAEngine, item: FreshQuestion) -> str | None:
    """The question as the answerer asks it, when it is one ask."""
    asks, _, _ = split_asks(engine.clean(item.question)[0])
    return asks[0].text if len(asks) == 1 else None


def lead_data(engine: QAEngine, batch_files: tuple[Path, ...] = MEASURED_QUESTIONS) -> LeadData:
    """Every labelled question with the vector the answerer would have for it (a form's from the
    index, an outside question's from the query encoder) and its fold."""
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
    texts: list[str] = []
    for si, entry in enumerate(store.forms):
        if entry.lead and entry.sentence in index:
            for j, _ in enumerate(entry.forms):
                vector = np.asarray(store.form_vectors[entry.row + j], dtype=np.float32)
                examples.append(LeadExample(vector, (index[entry.sentence],)))
                folds.append((7 * si + j) % FOLDS)
                rows.append(entry.row + j)
                texts.append(entry.forms[j])
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
            vector = engine.encode_query(asked)
            for _ in range(QUESTION_WEIGHT):
                examples.append(LeadExample(vector, targets))
                folds.append(n % FOLDS)
                rows.append(-1)
                texts.append(asked)
    return LeadData(sentences, np.stack([vectors[s] for s in sentences]), examples, folds, rows, texts, questions)


def fit_leads(engine: QAEngine, batch_files: tuple[Path, ...] = MEASURED_QUESTIONS) -> LeadFit:
    """The map that ships and the lead model fitted on out-of-fold cosines, with a report."""
    data = lead_data(engine, batch_files)
    by_row: dict[int, np.ndarray] = {}
    by_text: dict[str, np.ndarray] = {}
    for fold in range(FOLDS):
        w = fit_lead_map(data.vectors, [e for e, f in zip(data.examples, data.folds) if f != fold])
        for example, f, row, text in zip(data.examples, data.folds, data.form_rows, data.texts):
            if f == fold:
                turned = lead_direction(example.vector, w)
                if row >= 0:
                    by_row[row] = turned
                else:
                    by_text[text] = turned

    forms, _ = collect_groups(engine, lead=lambda row: by_row[row])
    asked: dict[str, list[LeadGroup]] = {}
    for stem, items in data.questions.items():
        usable = [i for i in items if (t := _asked(engine, i)) is not None and t in by_text]
        asked[stem] = question_groups(engine, usable, weight=float(QUESTION_WEIGHT), lead=lambda t: by_text[t])
    outside = [g for groups in asked.values() for g in groups]
    report = [f"{len(forms)} forms and {len(outside)} outside questions of {len(asked)} batches"]
    right = [0, 0, 0]
    for stem, groups in asked.items():  # the logit held out batch by batch (the cosines are out of fold already)
        without = fit_lead_model(forms + [g for s, gs in asked.items() if s != stem for g in gs])
        right[0] += sum(g.is_right(int(np.argmax(g.relevance))) for g in groups)
        right[1] += round(top1(groups, without) * len(groups))
        right[2] += len(groups)
    report.append(f"outside questions, each batch held out of the logit: right lead first by relevance {right[0]}/{right[2]}, "
                  f"by the model {right[1]}/{right[2]}")
    final = fit_lead_map(data.vectors, data.examples)
    return LeadFit(
        model=fit_lead_model(forms + outside, fitted_on=f"{len(forms)} question forms (own form left out) and {len(outside)} "
                             f"measured outside questions, with out-of-fold lead map cosines",
                             map_sha256=map_sha256(final)),
        map=final,
        report=report,
    )


def map_sha256(w: np.ndarray) -> str:
    """The sha256 of the ``.npy`` file ``np.save`` writes for ``w`` (its bytes depend on the values only)."""
    import io

    buf = io.BytesIO()
    np.save(buf, w, allow_pickle=False)
    return hashlib.sha256(buf.getvalue()).hexdigest()

"""Fit the lead model (:mod:`knowledge.qa.lead_model`): labelled groups of candidates and the fit.

``hwbot fit-leads`` drives it (:mod:`knowledge.evaluation.lead_training`, which also trains
the lead map whose cosine is one of the features).

Every question form of a sentence that may lead is asked as a question, through the same
intent, ask type, retrieval and candidate scoring an answer uses, with that form's own row
left out of the forms signal (an unseen question never matches a form word for word). The
sentence the form belongs to is the right lead; every other candidate that could lead is a
wrong one. A conditional logit (softmax over each question's candidates, L2-penalized) is
fitted by Newton's method on standardized features: a dozen weights from over a thousand
labelled questions, so there is little room to overfit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from knowledge.evaluation.fresh import FreshQuestion, has_term
from knowledge.qa.ask_model import ask_type
from knowledge.qa.asks import options_of
from knowledge.qa.candidates import candidates
from knowledge.qa.lead_model import FEATURES, LeadModel, feature_rows
from knowledge.qa.service import QAEngine
from knowledge.qa.splitting import split_asks
from knowledge.qa.standalone import dangling_opener

__all__ = ["LeadGroup", "collect_groups", "question_groups", "fit_lead_model", "top1", "to_toml"]


@dataclass(frozen=True)
class LeadGroup:
    """One form asked as a question: its candidates' feature rows and which row is its sentence."""

    sentence: int  # index of the sentence in the store's forms (-1: a labelled batch question)
    rows: np.ndarray
    right: int  # a right lead (for top-1)
    relevance: np.ndarray  # the candidates' relevance as the answerer scores it (the baseline)
    #: every right lead (a batch question's key terms may all be in several sentences)
    rights: tuple[int, ...] = ()
    #: how much the group counts in the fit
    weight: float = 1.0

    def is_right(self, i: int) -> bool:
        return i == self.right or i in self.rights


def collect_groups(
    engine: QAEngine, keep: Callable[[int], bool] | None = None, lead: Callable[[int], np.ndarray] | None = None,
) -> tuple[list[LeadGroup], int]:
    """The labelled groups, and how many forms were skipped (their sentence was not among the candidates).

    ``keep(i)`` picks the sentences (by index in the store's forms) whose forms are asked; all by default.
    ``lead(row)``: the lead map's direction of the form in that row of the store's form vectors
    (out of fold when fitting: a form the map learned from would vouch for itself)."""
    store = engine.store
    groups: list[LeadGroup] = []
    skipped = 0
    for si, entry in enumerate(store.forms):
        if not entry.lead or (keep is not None and not keep(si)):
            continue
        for j, form in enumerate(entry.forms):
            row = entry.row + j
            qvec = np.asarray(store.form_vectors[row], dtype=np.float32)
            intent = engine.intents.classify(form, qvec)
            hits, evidence = engine.retriever.search(form, qvec, k=engine.retrieval_depth(intent), exclude_form=row)
            cands = candidates(form, qvec, hits, store, engine.params.answer, evidence.form_scores)
            cands = [c for c in cands if dangling_opener(c.text) is None and engine.retriever.forms.can_lead(c.text)]
            right = next((i for i, c in enumerate(cands) if c.text == entry.sentence), None)
            if right is None or len(cands) < 2:
                skipped += 1
                continue
            kind = ask_type(form, intent.name, qvec, engine.encode_query)
            rows = feature_rows(cands, store, qvec, kind, options_of(form), lead(row) if lead else None)
            groups.append(LeadGroup(si, rows, right, np.asarray([c.relevance for c in cands])))
    return groups, skipped


def question_groups(
    engine: QAEngine, items: list[FreshQuestion], weight: float = 1.0, lead: Callable[[str], np.ndarray] | None = None,
) -> list[LeadGroup]:
    """Groups from a labelled batch: each in-domain, single-ask question asked as the answerer
    asks it; a right lead is a candidate holding all its key terms (questions with none skipped)."""
    store = engine.store
    groups: list[LeadGroup] = []
    for item in items:
        if item.domain != "in" or not item.terms or item.parts:
            continue
        text = engine.clean(item.question)[0]
        asks, _, _ = split_asks(text)
        if len(asks) != 1:
            continue
        question = asks[0].text
        qvec = engine.encode_query(question)
        intent = engine.intents.classify(question, qvec)
        hits, evidence, _ = engine.retrieve(question, qvec=qvec, k=engine.retrieval_depth(intent))
        cands = candidates(question, qvec, hits, store, engine.params.answer, evidence.form_scores)
        cands = [c for c in cands if dangling_opener(c.text) is None and engine.retriever.forms.can_lead(c.text)]
        rights = tuple(i for i, c in enumerate(cands) if all(has_term(c.text, t) for t in item.terms))
        if not rights or len(rights) == len(cands):
            continue
        rows = feature_rows(cands, store, qvec, ask_type(question, intent.name, qvec, engine.encode_query), options_of(question),
                            lead(question) if lead else None)
        groups.append(LeadGroup(-1, rows, rights[0], np.asarray([c.relevance for c in cands]), rights, weight))
    return groups


def fit_lead_model(
    groups: list[LeadGroup], *, l2: float = 0.01, steps: int = 50, fitted_on: str = "", map_sha256: str = "",
) -> LeadModel:
    """The conditional logit's weights on standardized features, by Newton's method (a dozen
    weights: the exact Hessian is cheap, and unlike plain gradient descent it converges on
    correlated features such as the cosine and the form score)."""
    x = np.concatenate([g.rows for g in groups])
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    z = (x - mean) / scale
    sizes = [len(g.rows) for g in groups]
    starts = np.cumsum([0] + sizes[:-1])
    owner = np.repeat(np.arange(len(groups)), sizes)
    y = np.zeros(len(z))
    for start, g in zip(starts, groups):
        rights = sorted(set(g.rights) | {g.right})
        y[start + np.asarray(rights)] = 1.0 / len(rights)
    gw = np.asarray([g.weight for g in groups])
    rw = gw[owner]
    n = float(gw.sum())

    def probabilities(w: np.ndarray) -> np.ndarray:
        s = z @ w
        e = np.exp(s - np.maximum.reduceat(s, starts)[owner])
        return e / np.add.reduceat(e, starts)[owner]

    def loss(w: np.ndarray) -> float:
        return float(-(rw * y * np.log(probabilities(w) + 1e-300)).sum() / n + 0.5 * l2 * w @ w)

    w = np.zeros(z.shape[1])
    for _ in range(steps):
        p = probabilities(w)
        grad = z.T @ (rw * (p - y)) / n + l2 * w
        group_mean = np.add.reduceat(z * p[:, None], starts)  # per group, E_p[z]
        hess = (z * (rw * p)[:, None]).T @ z - (group_mean * gw[:, None]).T @ group_mean
        hess = hess / n + l2 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        t, before = 1.0, loss(w)
        while t > 1e-4 and loss(w - t * step) > before:
            t /= 2
        w = w - t * step
        if float(np.abs(t * step).max()) < 1e-7:
            break
    return LeadModel(
        fitted_on=fitted_on or f"{len(groups)} question forms of knowledge/sources/forms (own form left out)",
        lead_map_sha256=map_sha256,
        mean={f: round(float(v), 6) for f, v in zip(FEATURES, mean)},
        scale={f: round(float(v), 6) for f, v in zip(FEATURES, scale)},
        weights={f: round(float(v), 6) for f, v in zip(FEATURES, w)},
    )


def top1(groups: list[LeadGroup], model: LeadModel | None) -> float:
    """Share of groups whose best candidate (by the model, else by relevance) is the right sentence."""
    if not groups:
        return 0.0
    hits = 0
    for g in groups:
        scores = model.score(g.rows) if model is not None else g.relevance
        hits += int(g.is_right(int(np.argmax(scores))))
    return hits / len(groups)


def to_toml(model: LeadModel) -> str:
    lines = [
        "# The lead model's weights: fitted by `hwbot fit-leads` (knowledge.evaluation.fit_leads).",
        "# Do not edit by hand; refit after changing the notes, their forms or the features.",
        f'fitted_on = "{model.fitted_on}"',
        f'lead_map_sha256 = "{model.lead_map_sha256}"',
    ]
    for name in ("mean", "scale", "weights"):
        lines += ["", f"[{name}]"] + [f"{f} = {getattr(model, name)[f]}" for f in FEATURES]
    return "\n".join(lines) + "\n"

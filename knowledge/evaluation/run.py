"""One dev-set run: every question asked through the real engine, judged and linted.

``measure`` (named so it does not clash with the recommendation engine's
``recommend``/``evaluate`` vocabulary) asks each question once with ``QAEngine.ask``,
the same path users get, and scores it. Query vectors are computed once per question
and reused for the retrieval-mode comparison.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from knowledge.evaluation.devset import DevItem, halves
from knowledge.evaluation.fresh import has_term, lead_sentence, plain_answer
from knowledge.evaluation.lint import lint_answer
from knowledge.evaluation.metrics import HalfReport, ItemResult, RetrievalRow, relevant_ids, summarize
from knowledge.qa.answers import Answer
from knowledge.qa.curated import cites_map
from knowledge.qa.retrieval import Mode
from knowledge.qa.service import QAEngine

__all__ = ["MODES", "EvalReport", "measure", "judge", "retrieval_rows"]

MODES: tuple[Mode, ...] = ("hybrid", "dense", "bm25")


class EvalReport(BaseModel):
    tune: HalfReport
    test: HalfReport
    retrieval: list[RetrievalRow]
    items: list[ItemResult]


def judge(engine: QAEngine, item: DevItem, expand: dict[str, set[str]], half: str = "", answer: Answer | None = None) -> ItemResult:
    """Ask one dev question (unless its ``answer`` is given) and judge the answer."""
    text, _ = engine.clean(item.question)
    qvec = engine.encode_query(text)
    answer = answer if answer is not None else engine.ask(item.question, query_vector=qvec)
    budget = engine.intent(text, qvec).max_sentences
    rel = relevant_ids(item, expand)
    body = answer.answer.lower()
    plain = plain_answer(answer.answer)
    answered = not answer.declined and item.domain == "in"
    return ItemResult(
        id=item.id,
        question=item.question,
        domain=item.domain,
        category=item.category,
        half=half,
        intent=answer.intent,
        declined=answer.declined,
        mode=answer.mode,
        cited_relevant=any(c.chunk_id in rel for c in answer.citations),
        has_term=not item.terms or any(t.lower() in body for t in item.terms),
        lint=_lint(engine, answer, budget),
        answer=answer.answer,
        first_sentence=answered and _first_sentence_answers(answer, item),
        parts_answered=sum(1 for p in item.parts if answered and all(has_term(plain, t) for t in p)),
        parts=len(item.parts),
    )


def _first_sentence_answers(answer: Answer, item: DevItem) -> bool:
    """Every key term in the lead sentence; for a multi-part question, each part's terms in its own lead."""
    if item.parts and answer.parts:
        return len(answer.parts) >= len(item.parts) and all(
            not part.declined and all(has_term(lead_sentence(part.answer), t) for t in terms)
            for part, terms in zip(answer.parts, item.parts)
        )
    return bool(item.terms) and all(has_term(lead_sentence(answer.answer), t) for t in item.terms)


def _lint(engine: QAEngine, answer: Answer, budget: int) -> list[str]:
    """The answer lint; a multi-part answer is linted part by part (each within its own budget)."""
    if answer.ask != "multi":
        return lint_answer(answer, engine.embedder, budget=budget)
    return [v for part in answer.parts for v in lint_answer(part, engine.embedder)]


def retrieval_rows(engine: QAEngine, items: list[DevItem], expand: dict[str, set[str]]) -> list[RetrievalRow]:
    """Recall@k and MRR@10 of each retrieval mode over the in-domain questions."""
    ins = [i for i in items if i.domain == "in"]
    vecs = {i.id: engine.encode_query(engine.clean(i.question)[0]) for i in ins}
    rows = []
    for mode in MODES:
        ranks: list[int | None] = []
        for item in ins:
            hits, _, _ = engine.retrieve(engine.clean(item.question)[0], mode=mode, k=10, qvec=vecs[item.id])
            rel = relevant_ids(item, expand)
            ranks.append(next((r for r, h in enumerate(hits) if h.chunk.chunk_id in rel), None))
        rows.append(_row(mode, ranks))
    return rows


def _row(mode: str, ranks: list[int | None]) -> RetrievalRow:
    n = max(1, len(ranks))

    def recall(k: int) -> float:
        return sum(1 for x in ranks if x is not None and x < k) / n

    mrr = sum(1 / (x + 1) for x in ranks if x is not None) / n
    return RetrievalRow(mode=mode, recall_at_1=recall(1), recall_at_3=recall(3), recall_at_5=recall(5), mrr_at_10=mrr)



def measure(
    engine: QAEngine, items: list[DevItem], *, with_retrieval: bool = True, answers: Mapping[str, Answer] | None = None
) -> EvalReport:
    """Judge every question; report each half separately.

    ``answers`` (dev item id -> the engine's answer) spares asking again a caller that has
    the answers already, e.g. to check other properties of the same answers.
    """
    expand = cites_map(engine.store)
    h = halves(items)
    given = answers or {}
    results = [judge(engine, item, expand, h[item.id], given.get(item.id)) for item in items]
    return EvalReport(
        tune=summarize("tune", [r for r in results if r.half == "tune"]),
        test=summarize("test", [r for r in results if r.half == "test"]),
        retrieval=retrieval_rows(engine, items, expand) if with_retrieval else [],
        items=results,
    )

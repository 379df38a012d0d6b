"""The notes' sentences an answer may quote, scored for one question, and how they are kept apart.

:mod:`knowledge.qa.compose` chooses and orders an answer's sentences; this module gives it
the candidates (every sentence of the retrieved chunks, with its relevance: cosine, shared
rare words, its chunk's rank and its closest question form) and the rules that keep the
sentences after the lead useful: not a restatement of one already picked (meaning or words),
on the question's ask rather than only its topic, with a leaning sentence's predecessor
brought along, and Maximal Marginal Relevance among the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from indexer.ondisk import Store, StoredChunk
from knowledge.qa.lexical import sentence_idf, sentence_words, tokenize
from knowledge.qa.params import AnswerParams
from knowledge.qa.retrieval import Hit
from knowledge.qa.standalone import dangling_opener, meta_phrase

__all__ = ["Candidate", "candidates", "redundant", "restates", "mmr", "doc_order", "with_predecessors", "on_topic"]


@dataclass
class Candidate:
    text: str
    chunk: StoredChunk
    position: int  # index of the sentence within its chunk
    rank: int  # rank of its chunk
    relevance: float
    vector: np.ndarray
    form: float = 0.0  # cosine of the question with this sentence's closest question form
    cos: float = 0.0  # cosine of the question with the sentence itself
    overlap: float = 0.0  # the question's rare words the sentence shares (idf-weighted share)
    lead: float = 0.0  # how likely it answers the ask, by the fitted lead model (knowledge.qa.lead_model)
    words: frozenset[str] = frozenset()  # its content words (knowledge.qa.lexical.tokenize)


def candidates(
    question: str, qvec: np.ndarray, hits: list[Hit], store: Store, params: AnswerParams,
    form_scores: dict[str, float] | None = None,
) -> list[Candidate]:
    qtokens = set(tokenize(question))
    idf = sentence_idf(store)
    by_row = sentence_words(store)  # each sentence's words, tokenized once per store
    default = max(idf.values(), default=1.0)
    qweight = sum(idf.get(t, default) for t in qtokens)
    out: list[Candidate] = []
    seen: set[str] = set()
    for hit in hits:
        chunk = hit.chunk
        vecs = store.sentence_vectors[chunk.sentence_start : chunk.sentence_start + len(chunk.sentences)]
        cos = vecs @ qvec
        for pos, (text, vec) in enumerate(zip(chunk.sentences, vecs)):
            if text in seen or len(text.split()) < 5 or text.endswith("?") or meta_phrase(text):
                continue  # overlap sentences appear in two chunks; fragments and meta text say little
            seen.add(text)
            stoks = by_row[chunk.sentence_start + pos]
            overlap = sum(idf.get(t, default) for t in qtokens & stoks) / qweight if qweight else 0.0
            rel = float(cos[pos]) + params.lexical_weight * overlap + params.rank_prior / (hit.rank + 1)
            form = (form_scores or {}).get(text, 0.0)
            rel += params.form_weight * max(0.0, form)
            out.append(Candidate(text, chunk, pos, hit.rank, rel, vec, form, float(cos[pos]), overlap, words=stoks))
    return out


def redundant(c: Candidate, picked: list[Candidate], params: AnswerParams) -> bool:
    """Says what a picked sentence says: close in meaning, or nearly all of the shorter one's words
    in the other. The embedding alone misses a restatement with a different opening ("A move from
    GPUs to TPUs is worth planning only when the bill ..." and "The move itself is worth planning
    once the bill ...": cosine 0.68)."""
    return any(float(c.vector @ p.vector) >= params.max_redundancy or restates(c.words, p.words, params) for p in picked)


def restates(a: frozenset[str], b: frozenset[str], params: AnswerParams) -> bool:
    shorter = min(len(a), len(b))
    return shorter >= params.restate_min_words and len(a & b) >= params.max_word_containment * shorter


def mmr(
    pool: list[Candidate], n: int, params: AnswerParams, picked: list[Candidate] | None = None, top: float | None = None
) -> list[Candidate]:
    """Greedy MMR: up to ``n`` relevant, mutually different sentences (``picked`` already chosen).

    A sentence must score ``min_relevance_ratio`` of the best in the pool and, when the
    answer has a lead (``top``, its relevance), ``min_support_ratio`` of the lead: measured
    only against what is left, a glossary's neighbouring entry rides along with the one asked for.
    """
    already = list(picked or [])
    if not pool or n <= 0:
        return []
    floor = max(c.relevance for c in pool) * params.min_relevance_ratio
    if top is not None:
        floor = max(floor, top * params.min_support_ratio)
    pool = [c for c in pool if c.relevance >= floor and c not in already]
    out: list[Candidate] = []
    while pool and len(out) < n:
        def score(c: Candidate) -> float:
            redundancy = max((float(c.vector @ p.vector) for p in already + out), default=0.0)
            return params.mmr_lambda * c.relevance - (1 - params.mmr_lambda) * redundancy

        nxt = max(pool, key=score)
        pool.remove(nxt)
        if not redundant(nxt, already + out, params):
            out.append(nxt)
    return out


def doc_order(c: Candidate) -> tuple:
    return (c.chunk.source_id, c.chunk.chunk_id, c.position)


def with_predecessors(picked: list[Candidate], all_cands: list[Candidate], budget: int) -> list[Candidate]:
    """A sentence that leans on its predecessor brings it along when the budget allows, else goes."""
    out: list[Candidate] = []
    for c in picked:
        if dangling_opener(c.text) is None:
            out.append(c)
            continue
        prev = next((x for x in all_cands if x.chunk is c.chunk and x.position == c.position - 1), None)
        if prev is not None and (prev in out or len(out) + 2 <= budget) and dangling_opener(prev.text) is None:
            if prev not in out:
                out.append(prev)
            out.append(c)
    return out[:budget]


def on_topic(c: Candidate, adds: set[str], lead: Candidate, params: AnswerParams) -> bool:
    """A sentence after the lead adds something the question asks that the lead does not say.

    It is nearly as relevant as the lead itself, or it names a word of the question (beyond
    the generic words of ``data/compose.toml``) that the lead lacks. A sentence that only
    shares the lead's subject was the commonest defect outside examiners found ("off-ask
    filler" after a right lead: the factory/workshop picture under "is a TPU cheaper?", the
    retracing sentence under a question about padding); closeness to the lead let it in, so
    closeness alone no longer does. ``adds``: the question's words, less the generic ones, that
    the lead does not name (computed once per answer by the caller).
    """
    if c.relevance >= lead.relevance * params.min_relevance_ratio:
        return True  # nearly as relevant as the lead itself
    return bool(adds & c.words)

"""Extractive answers: pick the best sentences of the top chunks, each citing its chunk.

No text is generated. Every answer sentence is a verbatim sentence of the chunk it
cites, so citation precision is 100% by construction (and a test checks the
invariant). Relevance is cosine similarity (precomputed sentence vectors, same model)
plus word overlap; Maximal Marginal Relevance keeps the picks from repeating each other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from indexer.store import Store, StoredChunk
from knowledge.qa.lexical import tokenize
from knowledge.qa.models import AnswerSentence, Citation
from knowledge.qa.params import AnswerParams
from knowledge.qa.retrieval import Hit

__all__ = ["Candidate", "compose", "is_tradeoff", "side_of", "join_sentences"]

_TRADEOFF = re.compile(
    r"\b(vs\.?|versus|or|switch|switching|migrate|move|moving|compare|comparison|better|choose|choosing|pick|trade-?offs?|instead)\b",
    re.I,
)
_GPU_TERMS = re.compile(r"\b(gpus?|cuda|cudnn|nvidia|workshop)\b", re.I)
_TPU_TERMS = re.compile(r"\b(tpus?|xla|jax|asic|factory|pods?|pallas|google cloud)\b", re.I)
_BOTTOM = re.compile(r"\b(balance between|outweighs?|the more stable|depends on|the decision)\b", re.I)


def is_tradeoff(question: str) -> bool:
    """A question weighing GPU against TPU, or asking whether to switch."""
    both = _GPU_TERMS.search(question) and _TPU_TERMS.search(question)
    switch = re.search(r"\b(should (we|i)|worth) (switch|move|migrat)", question, re.I)
    return bool((both and _TRADEOFF.search(question)) or switch)


def side_of(sentence: str) -> str:
    """Which side a sentence argues: 'gpu', 'tpu', 'bottom_line' or 'answer' (neither).

    A sentence that weighs the two against each other ("a balance between...", "the
    more stable ... the more the TPU outweighs ...") is a bottom line; otherwise the
    accelerator it names more often is its side.
    """
    if _BOTTOM.search(sentence):
        return "bottom_line"
    g = len(_GPU_TERMS.findall(sentence))
    t = len(_TPU_TERMS.findall(sentence))
    if g > t:
        return "gpu"
    if t > g:
        return "tpu"
    return "answer"


@dataclass
class Candidate:
    text: str
    chunk: StoredChunk
    position: int  # index of the sentence within its chunk
    rank: int  # rank of its chunk
    relevance: float
    vector: np.ndarray


def _candidates(question: str, qvec: np.ndarray, hits: list[Hit], store: Store, params: AnswerParams) -> list[Candidate]:
    qtokens = set(tokenize(question))
    out: list[Candidate] = []
    seen: set[str] = set()
    for hit in hits:
        chunk = hit.chunk
        vecs = store.sentence_vectors[chunk.sentence_start : chunk.sentence_start + len(chunk.sentences)]
        cos = vecs @ qvec
        for pos, (text, vec) in enumerate(zip(chunk.sentences, vecs)):
            if text in seen or len(text.split()) < 5 or text.endswith("?"):
                continue  # overlap sentences appear in two chunks; headings-like fragments say little
            seen.add(text)
            stoks = set(tokenize(text))
            overlap = len(qtokens & stoks) / len(qtokens) if qtokens else 0.0
            rel = float(cos[pos]) + params.lexical_weight * overlap + params.rank_prior / (hit.rank + 1)
            out.append(Candidate(text, chunk, pos, hit.rank, rel, vec))
    return out


def _mmr(cands: list[Candidate], params: AnswerParams, pool_filter=None) -> list[Candidate]:
    """Greedy MMR within the word budget."""
    pool = [c for c in cands if pool_filter is None or pool_filter(c)]
    if not pool:
        return []
    best = max(c.relevance for c in pool)
    pool = [c for c in pool if c.relevance >= best * params.min_relevance_ratio or c.relevance == best]
    picked: list[Candidate] = []
    words = 0
    while pool and len(picked) < params.max_sentences:
        def score(c: Candidate) -> float:
            redundancy = max((float(c.vector @ p.vector) for p in picked), default=0.0)
            return params.mmr_lambda * c.relevance - (1 - params.mmr_lambda) * redundancy

        nxt = max(pool, key=score)
        pool.remove(nxt)
        if any(float(nxt.vector @ p.vector) >= params.max_redundancy for p in picked):
            continue  # says again what a picked sentence said (e.g. a FAQ restating a note)
        n = len(nxt.text.split())
        if picked and words + n > params.max_words and len(picked) >= params.min_sentences:
            continue
        picked.append(nxt)
        words += n
    return picked


def _doc_order(c: Candidate) -> tuple:
    return (c.chunk.source_id, c.chunk.chunk_id, c.position)


def compose(
    question: str, qvec: np.ndarray, hits: list[Hit], store: Store, params: AnswerParams
) -> tuple[list[AnswerSentence], list[Citation]]:
    """Choose and order the answer sentences; a trade-off question gets GPU / TPU / bottom line."""
    cands = _candidates(question, qvec, hits, store, params)
    if not cands:
        return [], []
    chosen: list[tuple[Candidate, str]] = []
    if is_tradeoff(question):
        sides = {c.text: side_of(c.text) for c in cands}
        half = params.model_copy(update={"max_sentences": 2, "max_words": params.max_words // 2, "min_sentences": 1})
        gpu = _mmr(cands, half, lambda c: sides[c.text] == "gpu")
        tpu = _mmr(cands, half, lambda c: sides[c.text] == "tpu")
        bottom = _mmr(cands, half.model_copy(update={"max_sentences": 1}), lambda c: sides[c.text] == "bottom_line")
        if gpu and tpu:
            chosen = [(c, "gpu") for c in sorted(gpu, key=_doc_order)]
            chosen += [(c, "tpu") for c in sorted(tpu, key=_doc_order)]
            chosen += [(c, "bottom_line") for c in bottom]
    if not chosen:
        chosen = [(c, "answer") for c in sorted(_mmr(cands, params), key=_doc_order)]

    sentences = [AnswerSentence(text=c.text, chunk_id=c.chunk.chunk_id, role=role) for c, role in chosen]
    citations: list[Citation] = []
    hit_by_id = {h.chunk.chunk_id: h for h in hits}
    for c, _ in chosen:
        if any(x.chunk_id == c.chunk.chunk_id for x in citations):
            continue
        hit = hit_by_id[c.chunk.chunk_id]
        citations.append(
            Citation(
                label=c.chunk.label,
                chunk_id=c.chunk.chunk_id,
                source=c.chunk.file,
                pages=c.chunk.pages,
                score=round(hit.dense, 4),
            )
        )
    return sentences, citations


_HEADINGS = {"gpu": "GPU side:", "tpu": "TPU side:", "bottom_line": "Bottom line:"}


def join_sentences(sentences: list[AnswerSentence]) -> str:
    """The ``answer`` string: sentences with inline ``[chunk_id]`` markers, grouped by side."""
    lines: list[str] = []
    current_role: str | None = None
    for s in sentences:
        piece = f"{s.text} [{s.chunk_id}]"
        if s.role in _HEADINGS:
            if s.role != current_role:
                lines.append(f"{_HEADINGS[s.role]} {piece}")
            else:
                lines[-1] += " " + piece
        elif lines and current_role == s.role:
            lines[-1] += " " + piece
        else:
            lines.append(piece)
        current_role = s.role
    return "\n".join(lines)

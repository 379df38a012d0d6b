"""A "what should we watch for?" told at length: a risk for each part of the situation it tells.

"Next quarter we move our PyTorch job from A100s to TPUs. Today it has a couple of custom CUDA
ops, images are decoded on the fly, and batch sizes vary from run to run. What should we watch
out for?" names three risks. Searched as one question, the situation's loudest part decides the
answer: an engineer reading the answers judged the watch asks told at length of fq62, fq63, fq66
and fq67 incomplete, each answered on one of the risks the team raised, the others left out
(the shapes that force recompilation, the custom ops XLA cannot compile, the slow input pipeline).

So each sentence of the situation is searched together with the asking sentence, and its best
risk (chosen as any watch ask's lead is: no verdict, no hedge, nothing an earlier sentence
already said or restated) follows the answer's lead, in the order the team told them. A part of
the situation whose best risk shares none of its words adds nothing.

"Is that realistic for us?" told at length is answered the same way (fq68-27: customers on Azure
and on their own hardware, inputs from a few tokens to thousands; the answer spoke only of TPU
inference at high volume). There a verdict may answer a part ("A TPU is a weaker choice for
serving inputs of widely varying length"), but only one that shares two words of the part's own:
with one, the verdict found was the advice for another team ("a small team that fine-tunes models
now and then in PyTorch is usually better served by GPUs" under a two-week port of a PyTorch
vision model, fq69-27; judged misapplied on fq65-28, fq66-28 and fq67-27 before).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from knowledge.qa.answers import AnswerSentence, Citation
from knowledge.qa.asks import Ask, question_sentences
from knowledge.qa.compose import compose
from knowledge.qa.intent import Intent
from knowledge.qa.lexical import tokenize
from knowledge.qa.retrieval import Mode
from knowledge.qa.sides import is_verdict, vocabulary

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from indexer.ondisk import Store
    from knowledge.qa.params import QAParams
    from knowledge.qa.retrieval import Evidence, Hit, Retriever


class Engine(Protocol):
    """What a facet's answer needs of the question engine: its own steps (encode, retrieve, compose
    over its store), named here so that this module and :mod:`.service`, which calls it, do not name
    each other."""

    store: Store
    params: QAParams
    retriever: Retriever

    def encode_query(self, text: str) -> np.ndarray: ...

    def retrieve(
        self, question: str, *, mode: Mode = "hybrid", k: int | None = None, qvec: np.ndarray | None = None
    ) -> tuple[list[Hit], Evidence, np.ndarray]: ...

    def retrieval_depth(self, intent: Intent) -> int | None: ...

__all__ = ["FACETED_ASKS", "MAX_FACETS", "MAX_WITH_FACETS", "FacetAnswer", "facet_answerer", "situation_facets", "with_facets"]

#: The asks answered part by part when told at length.
FACETED_ASKS = frozenset({"watch", "realistic"})
#: At most this many parts of a situation are searched on their own (a long situation tells 3-5).
MAX_FACETS = 3
#: An answer with its situation's risks has at most this many sentences: the lead and a risk for
#: each part told, then the lead's own support while there is room.
MAX_WITH_FACETS = 4
#: Words of its own a part must share with a verdict that answers it (``verdicts``).
VERDICT_SHARED_WORDS = 2
#: A part of the situation with fewer words of its own than this ("Budget is approved.") names no risk.
MIN_FACET_WORDS = 3

#: Answers one part of the situation: (its words, the sentences already said) -> its sentences.
FacetAnswer = Callable[[str, frozenset[str]], tuple[list[AnswerSentence], list[Citation]]]


def situation_facets(question: str, focus: str) -> list[str]:
    """The sentences told before the asking one (``focus``) that say something of their own."""
    at = question.rfind(focus) if focus else -1
    if at <= 0:
        return []
    generic = vocabulary().generic
    told = question_sentences(question[:at])
    return [s for s in told if len(set(tokenize(s)) - generic) >= MIN_FACET_WORDS][:MAX_FACETS]


def _answers_part(sentence: str, own: set[str], verdicts: bool) -> bool:
    """Whether a sentence found for a part answers it: it shares a word of the part's own, and a
    verdict (only where ``verdicts`` allows one) two, since it takes a side and must be about this part."""
    shared = len(own & set(tokenize(sentence)))
    if is_verdict(sentence):
        return verdicts and shared >= VERDICT_SHARED_WORDS
    return shared >= 1


def with_facets(
    sentences: list[AnswerSentence], citations: list[Citation], facets: list[str], answer: FacetAnswer,
    *, verdicts: bool = False,
) -> tuple[list[AnswerSentence], list[Citation]]:
    """The lead, then one risk per part of the situation, then the lead's support while there is room."""
    if not sentences or not facets:
        return sentences, citations
    lead, support = sentences[0], sentences[1:]
    chosen = [lead]
    cited = list(citations)
    for facet in facets:
        said = frozenset(s.text for s in chosen)
        found, found_citations = answer(facet, said)
        # a watch ask is answered by risks: "the strongest case for a TPU" is no risk of the move
        # and it answers this part: it shares a word of its own with it (searched with the asking
        # sentence and leniently, a part that names no risk still finds a sentence: the move's
        # general checklist joined "the VM sits idle overnight" and "policy says two clouds")
        own = set(tokenize(facet)) - vocabulary().generic
        risk = next((s for s in found if s.text not in said and _answers_part(s.text, own, verdicts)), None)
        if risk is None:
            continue
        chosen.append(AnswerSentence(text=risk.text, chunk_id=risk.chunk_id, role="answer"))
        cited += [c for c in found_citations if c.chunk_id == risk.chunk_id]  # one per chunk below
    if len(chosen) == 1:
        return sentences, citations
    chosen += [s for s in support if all(s.text != c.text for c in chosen)][: max(0, MAX_WITH_FACETS - len(chosen))]
    chosen = chosen[:MAX_WITH_FACETS]
    # cited in the order the sentences are read, as compose cites ([1], [2], ... down the answer)
    by_chunk = {c.chunk_id: c for c in reversed(cited)}
    order = list(dict.fromkeys(s.chunk_id for s in chosen))
    return chosen, [by_chunk[k] for k in order if k in by_chunk]


def facet_answerer(engine: Engine, focus: str, ask: Ask, intent: Intent, mode: Mode, used: frozenset[str]) -> FacetAnswer:
    """One part of a situation searched with the asking sentence and answered as its own watch ask,
    by the engine's own steps (the whole question already passed the evidence checks, so a part is
    not declined for weak evidence: :func:`with_facets` asks that its risk share the part's words)."""

    def answer(words: str, said: frozenset[str]) -> tuple[list[AnswerSentence], list[Citation]]:
        search = f"{words} {focus}"
        qvec = engine.encode_query(search)
        hits, evidence, _ = engine.retrieve(search, mode=mode, qvec=qvec, k=engine.retrieval_depth(intent))
        if not hits:
            return [], []
        return compose(search, qvec, hits, engine.store, engine.params.answer, replace(intent, max_sentences=1),
                       ask=replace(ask, text=focus), form_scores=evidence.form_scores,
                       can_lead=engine.retriever.forms.can_lead, used=used | said)

    return answer

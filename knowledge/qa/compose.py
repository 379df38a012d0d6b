"""Extractive answers shaped by what the question asks: the answer first, within a budget.

No text is generated. Every answer sentence is a verbatim sentence of the chunk it
cites, so citation precision is 100% by construction (a test checks the invariant).
Relevance is cosine similarity (precomputed sentence vectors, same model) plus word
overlap; Maximal Marginal Relevance keeps the picks from repeating each other, which is
also what keeps one fact from appearing twice (once from the notes, once from the FAQ).

The shape follows the ask (:mod:`knowledge.qa.asks`) and the intent:
- an open comparison leads with a verdict sentence (pick a GPU, pick a TPU, or what the
  choice depends on), then "For GPUs:" and "For TPUs:", each side holding only sentences
  about that side that argue for it;
- anything else leads with the most relevant sentence that answers the ask
  (:func:`knowledge.qa.leads.answers_ask`; a choice for our team with a verdict), then at
  most two supporting sentences in the order of the notes; relevance includes how close
  the question is to the sentence's question forms (:mod:`knowledge.qa.form_match`);
- the intent's sentence budget bounds the length, and a sentence that leans on its
  predecessor brings it along or is left out.
Which side a sentence is about or argues for, and whether it is a verdict, is
:mod:`knowledge.qa.sides` (its vocabulary is data, in ``data/compose.toml``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from indexer.ondisk import Store
from knowledge.qa.answers import AnswerSentence, Citation
from knowledge.qa.asks import Ask
from knowledge.qa.both_sides import with_other_side
from knowledge.qa.candidates import (
    Candidate,
    candidates,
    doc_order,
    mmr,
    on_topic,
    redundant,
    restates,
    with_predecessors,
)
from knowledge.qa.intent import CHOICE_INTENTS, Intent
from knowledge.qa.lead_model import feature_rows, lead_model
from knowledge.qa.leads import answers_ask, has_lead_cues, is_hedge
from knowledge.qa.lexical import tokenize
from knowledge.qa.params import AnswerParams
from knowledge.qa.retrieval import Hit
from knowledge.qa.sides import ComposeVocabulary, argues_for, is_verdict, mentions_domain, side_of, vocabulary
from knowledge.qa.standalone import dangling_opener

__all__ = [
    "Candidate", "ComposeVocabulary", "vocabulary", "compose", "side_of", "argues_for", "is_verdict",
    "mentions_domain",
]

#: Ask types whose lead the lead model picks among all sentences that may lead; the others
#: must lead with a sentence of their shape (an explicit polarity, the option named, an action,
#: a verdict) and the model only ranks those.
_MODEL_LEADS = frozenset({"why", "how", "list", "does_matter", "diagnose", "realistic", "watch", "compare"})
#: Asks a verdict does not answer: "anything we should watch out for on TPU pods?" after a decided
#: plan wants the risks, and "what's going on?" the cause, not "the strongest case for a TPU".
_NO_VERDICT_LEADS = frozenset({"watch", "diagnose"})
#: Asks whose lead the model ranks only among sentences of the ask's shape (``[lead]`` in asks.toml),
#: when any is in the band.
_SHAPED_MODEL_LEADS = frozenset({"watch"})
#: Asks whose answer goes on through the FAQ entry its lead opens.
_FAQ_GOES_ON = frozenset({"how", "how_to_fix", "watch"})
_DEFAULT_INTENT = Intent(name="how", max_sentences=4, decided_by="default")


def _lead(
    pool: list[Candidate], prefer: Callable[[str], bool], *, strict: bool = False, wide: bool = False,
    band: float | None = None,
) -> Candidate | None:
    """The most relevant preferred sentence among the relevant ones (a wider band when ``strict``
    or ``wide``; ``band`` overrides both), else (unless ``strict``) the most relevant sentence.

    A hedge never leads, whatever ``prefer`` says ("When neither list fits cleanly, ..." led
    "whats the diff between a gpu and a tpu" through a preference that only checked openers).
    """
    pool = [c for c in pool if not is_hedge(c.text)]
    if not pool:
        return None
    top = max(c.relevance for c in pool)
    floor = band if band is not None else 0.6 if strict or wide else 0.8
    preferred = [c for c in pool if prefer(c.text) and c.relevance >= top * floor]
    if preferred or strict:
        return max(preferred, key=_lead_key, default=None)
    return max(pool, key=_lead_key)


def _lead_key(c: Candidate) -> tuple[float, float]:
    """The fitted lead model's score (:mod:`knowledge.qa.lead_model`), relevance breaking ties
    (and deciding alone while no model is fitted, when every score is 0)."""
    return (c.lead, c.relevance)


def _situated(question: str) -> bool:
    """Whether a comparison tells something beyond the two accelerators ("we try a new architecture
    every week: GPU or TPU?", "fluid simulation in double precision, which one?")."""
    voc = vocabulary()
    named = {t for t in tokenize(question) if not voc.gpu.search(t) and not voc.tpu.search(t)}
    return bool(named - voc.generic - voc.comparing)


def _choice(cands: list[Candidate], intent: Intent, params: AnswerParams, question: str) -> list[tuple[Candidate, str]]:
    """Verdict first, then the sentences arguing for each side."""
    verdicts = [c for c in cands if is_verdict(c.text) and not is_hedge(c.text)]
    # a bare comparison ("gpu or tpu?") leads with a verdict that weighs both sides, when one is
    # about as relevant; one that tells a situation gets the verdict that takes a side for it, not
    # "a balance between the freedom to pivot and the power to scale"
    # ("the principal trade-off between ..." asks for the verdict that weighs both: `trade_off` in the data)
    situated = _situated(question) and not vocabulary().trade_off.search(question)
    lead = _lead(verdicts, lambda s: (argues_for(s) is not None) == situated) if verdicts else _lead(cands, lambda s: side_of(s) is not None)
    if lead is None:
        return []
    top = max(cands, key=lambda c: c.relevance)
    voc = vocabulary()
    compares = bool(voc.gpu.search(top.text) and voc.tpu.search(top.text)) and argues_for(top.text) is not None
    narrow = intent.name == "comparison" and top is not lead and compares and dangling_opener(top.text) is None
    if narrow and lead.relevance < top.relevance * params.min_relevance_ratio:
        # A comparison on one narrow point ("which is easier to debug, GPU or TPU?") is
        # answered by the sentence that compares the two on that point and takes a side,
        # not by a general verdict (a team's own situation still gets the verdict).
        lead = top
    if (verdicts and top is not lead and lead.relevance < top.relevance * params.verdict_floor and not is_hedge(top.text)
            and dangling_opener(top.text) is None):
        # every verdict is on another matter than the question's ("float64 ... stays on GPUs" for
        # "does it matter where we decode images on a TPU?", fq99-25, typed a choice): the sentence
        # that answers the question leads, alone: sides argued on other matters would only pad it
        return [(top, "answer")]
    chosen: list[tuple[Candidate, str]] = [(lead, "verdict")]
    picked = [lead]
    # The question's best answer may argue for neither side ("PyTorch can also target TPUs
    # through PyTorch/XLA" for a PyTorch team asking what to expect): when it beats the
    # verdict it follows it, so the sides do not crowd it out.
    best = max(cands, key=lambda c: c.relevance)
    if (
        best is not lead and intent.max_sentences > 1 and best.relevance > lead.relevance and not is_hedge(best.text)
        and argues_for(best.text) is None and dangling_opener(best.text) is None and not redundant(best, picked, params)
    ):
        chosen.append((best, "answer"))
        picked.append(best)
    per_side = max(0, (intent.max_sentences - len(chosen)) // 2)
    rest = [c for c in cands if c not in picked]
    for side in ("gpu", "tpu"):
        # a side holds only sentences about that side that argue for it (not "a TPU is a poor
        # place for ..." under "For GPUs:")
        ok = [c for c in rest if argues_for(c.text) == side == side_of(c.text) and dangling_opener(c.text) is None]
        mine = mmr(ok, per_side, params, picked)
        picked += mine
        chosen += [(c, side) for c in sorted(mine, key=doc_order)]
    return chosen


def _plain(
    question: str, cands: list[Candidate], intent: Intent, params: AnswerParams, ask: Ask | None = None,
    can_lead: Callable[[str], bool] = lambda s: True,
) -> list[tuple[Candidate, str]]:
    """The sentence answering the ask first, then the most useful others in the order of the notes."""
    voc = vocabulary()
    if ask is not None and ask.type not in ("what_is", ""):
        kind, options = ask.type, ask.options
        # a sentence one of whose question forms is nearly the question answers it, by the
        # forms' own account, whatever its wording
        # (not for a team's trouble told in several sentences: its forms match the situation, not the ask)
        told = kind in ("diagnose", "does_matter", "realistic", "watch") and len(re.findall(r"[.?!](?:\s|$)", question)) > 1
        asked = set() if told else {c.text for c in cands if c.form >= params.form_answers}

        def answers(s: str) -> bool:
            # (a watch ask told at length is answered by a risk, never by "a move is worth planning only when ...")
            verdict = is_verdict(s) if kind == "choice" else not (kind == "watch" and is_verdict(s))
            # how to fix: a sentence whose forms match the question still leads only when it says
            # what to do (a close restatement of the trouble is not its fix)
            fits = answers_ask(kind, s, options) if kind == "how_to_fix" else (
                s in asked and not is_hedge(s) or answers_ask(kind, s, options))
            return verdict and dangling_opener(s) is None and can_lead(s) and fits

        # a how-to-fix ask has no answer when no relevant sentence says what to do
        # (a team's trouble told at length: its situation outweighs its ask in every signal of the
        # whole question, so the lead must have the ask's shape, "because", "waits", "slows", and
        # the model ranks only those: else "the strongest case for a TPU" led a JAX-on-Google-Cloud
        # team's "our chips sit idle, what's going on?")
        if kind in _MODEL_LEADS and any(c.lead for c in cands) and not (told and has_lead_cues(kind)):
            # the fitted lead model weighs the ask fit with every other signal (knowledge.qa.lead_model),
            # relevance among them (cosine, rank, shared words, forms), so only a wide relevance band
            # narrows its choice: at 0.8 of the best relevance, "the profilers show whether a TPU step
            # is input-bound" lost "how do we keep a TPU fed?" to a sentence on matrix-heavy models;
            # with none, a how-to (0.94) beat "Debugging on a TPU is harder than on a GPU" (1.61) by a
            # hair of the model's score for "debugging: nicer on tpu or on gpu?"
            # (a watch ask leads with a risk when one is in the band: the model, trained while watch
            # asks had no lead shape, ranked "keep the move open by writing JAX" above the pitfalls)
            lead = _lead(cands, lambda s: dangling_opener(s) is None and can_lead(s) and not is_hedge(s)
                         and not (kind in _NO_VERDICT_LEADS and is_verdict(s))
                         and (kind not in _SHAPED_MODEL_LEADS or answers_ask(kind, s, options)),
                         band=params.model_lead_band)
        else:
            lead = _lead(cands, answers, strict=kind == "how_to_fix", wide=told)
            if lead is None and kind == "how_to_fix":
                # the notes put a fix beside its diagnosis: when no action is relevant enough on its
                # own ("ConcretizationTypeError ..., how do I fix it?" is closest to what the error
                # means), the action of the best sentence's own section answers
                top = max(cands, key=lambda c: c.relevance)
                lead = max((c for c in cands if c.chunk.chunk_id == top.chunk.chunk_id and answers(c.text)),
                           key=_lead_key, default=None)
    elif intent.name == "definition" and intent.decided_by.startswith("cue"):
        # Only a question worded "what is X" / "what does X stand for" prefers a defining
        # sentence; "who makes TPUs?" (a definition by its nearest prototype) wants the
        # sentence that answers it, defining or not.
        qtokens = set(tokenize(question))

        def defines_asked(s: str) -> bool:
            head = re.split(r"\b(?:is|are|stands?)\b", s, maxsplit=1)[0]
            return any(p.search(s) for p in voc.definitions) and bool(qtokens & set(tokenize(head)))

        # A defining sentence leads only among the relevant ones: "A TPU is a poor place for
        # string handling" has the shape of a definition but answers no "who makes TPUs?".
        lead = _lead(cands, lambda s: defines_asked(s) and dangling_opener(s) is None)
    else:
        lead = _lead(cands, lambda s: dangling_opener(s) is None and can_lead(s))
    if lead is None:
        return []
    adds = set(tokenize(question)) - voc.generic - lead.words
    # nor does a verdict support the answer to a watch ask: "A small team that fine-tunes models now
    # and then is usually better served by GPUs" second-guessed a team's decided move and misread its
    # situation (fq65-28, fq66-28, judged so by an engineer). (A diagnosis keeps its support: the
    # sentence that says how a traced if is written in JAX reads as a verdict and is its fix.)
    no_verdict = ask is not None and ask.type == "watch"

    def may_support(c: Candidate) -> bool:
        return not is_hedge(c.text) and not (no_verdict and is_verdict(c.text))

    pool = [c for c in cands if c is not lead and may_support(c) and on_topic(c, adds, lead, params)]
    if any(c.lead for c in cands):
        # the lead model reads whether a sentence answers the question (not only its topic): a
        # supporting sentence it scores far below the lead is on the subject, not on the ask ("the
        # GPU is called a workshop" crowded out "GPU clusters split a job across nodes with NCCL" by relevance)
        pool = [c for c in pool if c.lead >= lead.lead - params.support_lead_gap]
    # a list asked for goes on in the sentence after its lead ("... are a poor fit for a TPU.
    # Scientific computing that needs double precision does not belong on a TPU either"): that
    # sentence names another item, not the question's words, so the support rule alone drops it
    # so does a how-to or a watch list led by the answer that opens a FAQ entry (a chunk that cites the
    # notes): the entry's next sentences are the rest of that answer ("keep a later move cheap by writing
    # JAX ...", then the CUDA kernels' fallback, then an early PyTorch/XLA trial; three writers' "keep
    # the door open" questions were read as incomplete without them)
    faq_entry = ask is not None and ask.type in _FAQ_GOES_ON and lead.position == 0 and bool(lead.chunk.cites)
    reach = intent.max_sentences - 1 if faq_entry else 1
    listed = [] if ask is None or not (ask.type == "list" or faq_entry) else sorted((
        c for c in cands if c.chunk.chunk_id == lead.chunk.chunk_id and lead.position < c.position <= lead.position + reach
        and not is_hedge(c.text)), key=lambda c: c.position)[: max(0, intent.max_sentences - 1)]
    # a sentence the lead model ranks above the lead itself answers the ask by the model's own
    # account, however little it shares with the question's words or relevance
    endorsed = [] if listed or intent.max_sentences < 2 else [
        c for c in sorted(cands, key=_lead_key, reverse=True)
        if c is not lead and c.lead and c.lead > lead.lead and may_support(c)
        and dangling_opener(c.text) is None and not redundant(c, [lead], params)
    ][:1]
    listed = listed + endorsed
    others = listed + mmr([c for c in pool if c not in listed], intent.max_sentences - 1 - len(listed), params,
                           [lead, *listed], top=lead.relevance)
    if ask is not None and ask.type == "diagnose" and others:
        others = _with_a_cause([lead, *others], [c for c in cands if on_topic(c, adds, lead, params)], params)[1:]
    if ask is not None and ask.type == "diagnose" and 1 + len(others) < intent.max_sentences:
        others = _with_a_fix([lead, *others], cands, params)[1:]
    ordered = with_predecessors([lead] + sorted(others, key=doc_order), cands, intent.max_sentences)
    # a comparison on one point is settled by a lead that takes a side: it is the answer's verdict
    verdict = ask is not None and (
        ask.type == "choice" and is_verdict(lead.text) or ask.type == "compare" and argues_for(lead.text) is not None
    )
    return [(c, "verdict" if verdict and c is lead else "answer") for c in ordered]


def _is_cause(c: Candidate) -> bool:
    """A sentence that says why, not what to do ("TPUs compute so fast that they often sit idle, waiting
    for data ..." against "... avoiding that idle time means engineering the whole input pipeline ...": a fix by
    ``fix_shapes`` in ``data/compose.toml``)."""
    return answers_ask("diagnose", c.text) and vocabulary().fix_shapes.search(c.text) is None and not is_hedge(c.text)


def _with_a_cause(chosen: list[Candidate], cands: list[Candidate], params: AnswerParams) -> list[Candidate]:
    """A diagnosis answered only with fixes ends with its most relevant cause instead of its last fix:
    "what's going on?" after a story of an idle TPU never said that the chip waits for data (an engineer,
    fq72-26, fq73-27). The lead stays: most writers' "what's going on?" wants the fix first."""
    if any(_is_cause(c) for c in chosen):
        return chosen
    # the cause of the trouble the fixes are about: from a section they were quoted from, and about as
    # relevant as the lead ("When jax.jit keeps retracing ..." is the most relevant cause for any JAX
    # story, and closed idle-pipeline ones)
    sections = {c.chunk.chunk_id for c in chosen}
    floor = chosen[0].relevance * params.cause_relevance
    causes = [c for c in cands if c not in chosen and c.chunk.chunk_id in sections and _is_cause(c)
              and dangling_opener(c.text) is None and c.relevance >= floor and not redundant(c, chosen[:-1], params)]
    return chosen[:-1] + [max(causes, key=lambda c: c.relevance)] if causes else chosen


def _with_a_fix(chosen: list[Candidate], cands: list[Candidate], params: AnswerParams) -> list[Candidate]:
    """A diagnosis answered with causes alone gains the fix its lead's own section gives, the nearest
    one: "jax model keeps recompiling every few steps" got why, not the padding and static arguments
    the next sentence says stop it (an engineer, fq92-11)."""
    shapes = vocabulary().fix_shapes
    if any(shapes.search(c.text) for c in chosen):
        return chosen
    lead = chosen[0]
    fixes = [c for c in cands if c not in chosen and c.chunk.chunk_id == lead.chunk.chunk_id and shapes.search(c.text)
             and not is_hedge(c.text) and dangling_opener(c.text) is None and not redundant(c, chosen, params)]
    return chosen + [min(fixes, key=lambda c: (abs(c.position - lead.position), -c.relevance))] if fixes else chosen


#: Asks whose lead answers about the accelerator they name; a team's trouble, fix or choice is
#: answered from whatever the notes say about its situation.
_SIDED_ASKS = frozenset({"yes_no", "compare", "which_one", "why", "how", "does_matter", "what_is", "list"})


def _asks_about_gpus_only(ask: Ask) -> bool:
    """An ask whose own words name GPUs (or CUDA) and no TPU: in a GPU-or-TPU notes, its answer is
    about GPUs, so its lead must name one."""
    voc = vocabulary()
    return ask.type in _SIDED_ASKS and voc.gpu.search(ask.text) is not None and voc.tpu.search(ask.text) is None


def _open_comparison(question: str, cands: list[Candidate]) -> bool:
    """A comparison asked in general ("gpu or tpu?"), not on one point ("more mature stack: gpu or tpu?").

    It is on a point when it sets the two accelerators against each other, names something beyond
    them and the generic words of ``data/compose.toml``, and the lead model's best sentence for it
    is not a verdict: that sentence answers the point, and "For GPUs / For TPUs" sides would bury
    it. A question naming one side ("when should we pick a TPU?") asks for a verdict.
    """
    voc = vocabulary()
    if not (voc.gpu.search(question) and voc.tpu.search(question)) or not set(tokenize(question)) - voc.generic:
        return True
    usable = [c for c in cands if not is_hedge(c.text) and dangling_opener(c.text) is None]
    return not usable or is_verdict(max(usable, key=_lead_key).text)


def compose(
    question: str, qvec: np.ndarray, hits: list[Hit], store: Store, params: AnswerParams, intent: Intent | None = None,
    *, ask: Ask | None = None, form_scores: dict[str, float] | None = None, can_lead: Callable[[str], bool] = lambda s: True,
    used: frozenset[str] = frozenset(), reserved: frozenset[str] = frozenset(),
) -> tuple[list[AnswerSentence], list[Citation]]:
    """Choose and order the answer sentences for ``ask`` and ``intent``; ([], []) when there is nothing to say.

    Without an intent the answer is shaped like an explanation (the why/how budget).
    Without an ask (the eval's single-signal modes) the intent alone shapes it.
    ``used`` holds the sentences an earlier part of the same question already quoted: no
    sentence is said twice across parts, nor restated in other words ("Custom kernels are still
    possible on a TPU, but not in CUDA" after "Custom TPU kernels are possible, but not in CUDA:
    ... Pallas" is no answer to "if not, what is the alternative?"). ``reserved`` holds the
    sentences later parts lead with: this part may lead with one, never quote one in support.
    """
    intent = intent or _DEFAULT_INTENT
    said = [frozenset(tokenize(text)) for text in used]
    cands = [
        c for c in candidates(question, qvec, hits, store, params, form_scores)
        if c.text not in used and not any(restates(c.words, words, params) for words in said)
    ]
    if not cands or intent.max_sentences <= 0:
        return [], []
    model = lead_model()
    # every ask's candidates are ranked by the model, a question told in several sentences too:
    # on the eleven batches the model never saw (fq20-fq30), that led 164 of 308 in-domain questions
    # with all their key terms against 143 by relevance alone (see _plain for a trouble told at length)
    if model is not None and ask is not None:
        for c, score in zip(cands, model.score(feature_rows(cands, store, qvec, ask.type, ask.options))):
            c.lead = float(score)
    chosen: list[tuple[Candidate, str]] = []
    trade_off = ask is not None and ask.type == "compare" and vocabulary().trade_off.search(question) is not None
    two_sided = ask is None or (ask.type == "compare" and (_open_comparison(question, cands) or trade_off))
    if (intent.name in CHOICE_INTENTS or trade_off) and intent.max_sentences > 1 and two_sided:
        chosen = _choice(cands, intent, params, question)
    elif intent.name in CHOICE_INTENTS and two_sided:
        verdicts = [c for c in cands if is_verdict(c.text)]
        if verdicts:
            chosen = [(max(verdicts, key=lambda c: c.relevance), "verdict")]
    if not chosen and ask is not None and _asks_about_gpus_only(ask):
        # "is a GPU any better at that?": a lead about the TPU alone ("Element-wise operations on
        # a TPU run on its vector units ...") answers the ask before it, not this one
        chosen = _plain(question, cands, intent, params, ask, lambda s: can_lead(s) and vocabulary().gpu.search(s) is not None)
    if not chosen:
        chosen = with_other_side(question, _plain(question, cands, intent, params, ask, can_lead), cands, ask,
                                 intent.max_sentences, reserved)
    # "what's going on and what should we change first?": the fixes are the second ask's answer; quoted
    # as the first one's support, they left the second with "stay on GPUs" (fq65-26)
    chosen = chosen[:1] + [(c, role) for c, role in chosen[1:] if c.text not in reserved]

    sentences = [AnswerSentence(text=c.text, chunk_id=c.chunk.chunk_id, role=role) for c, role in chosen]
    citations: list[Citation] = []
    hit_by_id = {h.chunk.chunk_id: h for h in hits}
    for c, _ in chosen:
        if any(x.chunk_id == c.chunk.chunk_id for x in citations):
            continue
        hit = hit_by_id[c.chunk.chunk_id]
        citations.append(
            Citation(label=c.chunk.label, chunk_id=c.chunk.chunk_id, source=c.chunk.file, pages=c.chunk.pages, score=round(hit.dense, 4))
        )
    return sentences, citations

"""A question that sets GPUs and TPUs against each other on one matter gets a sentence about each.

"How does distributing one training run over many accelerators differ between a TPU deployment and
a GPU cluster?" was answered with two sentences on GPU clusters (NCCL, FSDP), and the notes' sentence
on TPU sharding (jax.sharding, shard_map), in the same paragraph, was left out: its words share
little with the question's, so neither relevance nor the lead model ranked it. Engineers reading
three batches judged those answers incomplete (fq87-15, fq88-10, fq89-31).

So when a question names both accelerators with a comparing word (``both_sides`` in
``data/compose.toml``) and the chosen sentences name only one of them, the most relevant sentence
about the other one alone from the chosen sentences' own sections is added (it replaces the last
supporting sentence when the answer is full). The lead never changes, and nothing from another
section is pulled in: a sentence that merely names the other accelerator elsewhere in the notes is
about another matter.
"""

from __future__ import annotations

from knowledge.qa.asks import Ask
from knowledge.qa.candidates import Candidate
from knowledge.qa.leads import is_hedge
from knowledge.qa.sides import is_verdict, vocabulary
from knowledge.qa.standalone import dangling_opener

__all__ = ["with_other_side"]

#: asks whose answer is a verdict or a team's situation are answered as they are (a choice says
#: which side; a diagnosis or a fix is about the team's own accelerator)
_ASKS = frozenset({"compare", "how", "what_is", "why", "list", "which_one", "yes_no"})
#: a sentence not beside a chosen one must be this relevant, relative to the least relevant chosen one
_NEAR = 0.9


def with_other_side(
    question: str, chosen: list[tuple[Candidate, str]], cands: list[Candidate], ask: Ask | None, max_sentences: int,
    reserved: frozenset[str] = frozenset(),
) -> list[tuple[Candidate, str]]:
    """``chosen`` with a sentence about the accelerator it leaves out, when the question compares both.

    ``reserved`` holds the sentences later parts of the question lead with ("... on TPUs versus a GPU
    cluster? Like, what tooling do people reach for on each side?"): the part that answers with one
    is left to answer it."""
    voc = vocabulary()
    if not chosen or ask is None or ask.type not in _ASKS or max_sentences < 2:
        return chosen
    if not (voc.gpu.search(question) and voc.tpu.search(question) and voc.both_sides.search(question)):
        return chosen
    taken = {c.text for c, _ in chosen} | reserved
    lead = chosen[0][0]
    pair = _beside_lead(lead, cands, taken)
    if pair is not None:
        # the notes answer the matter for each side in two sentences side by side (scaling across
        # chips was said so until both sides became one sentence: "Large TPU jobs shard ... GPU
        # clusters scale ... with NCCL"): a lead about one side is followed by its pair, whatever the
        # supports name (fq92-37)
        return [chosen[0], (pair, "answer"), *chosen[1:]][:max_sentences]
    # answered for each already, by two sentences or one naming both ("TPUs use bfloat16 ..., so TPU
    # training needs none of the loss scaling that float16 training on GPUs relies on")
    gpu = any(voc.gpu.search(c.text) for c, _ in chosen)
    tpu = any(voc.tpu.search(c.text) for c, _ in chosen)
    if gpu == tpu:
        return chosen
    missing = "tpu" if gpu else "gpu"
    # about the missing side alone: "... deployment outside Google Cloud, a GPU is the simpler choice"
    # names Google's cloud but speaks of GPUs
    sections = {c.chunk.chunk_id for c, _ in chosen}
    pool = [
        c for c in cands
        if c.chunk.chunk_id in sections and c.text not in taken and _one_side(c.text) == missing
        and not is_hedge(c.text) and dangling_opener(c.text) is None
    ]
    # the notes set the sides next to each other ("Element-wise operations on a TPU run on its vector
    # units ... A GPU runs element-wise kernels as well as any other kernel"): the sentence beside a
    # chosen one answers the same matter for the other side, where a verdict ("the strongest case for
    # a TPU") answers which to pick; further away in the section, only a sentence as relevant as the
    # answer's own is on the same matter ("a short run on a small TPU slice shows early whether the
    # step is input-bound" is not)
    beside = {(c.chunk.chunk_id, c.position + d) for c, _ in chosen for d in (-1, 1)}
    floor = _NEAR * min(c.relevance for c, _ in chosen)
    pool = [c for c in pool if (c.chunk.chunk_id, c.position) in beside or c.relevance >= floor]
    if not pool:
        return chosen
    best = max(pool, key=lambda c: ((c.chunk.chunk_id, c.position) in beside, not is_verdict(c.text), c.relevance))
    kept = chosen if len(chosen) < max_sentences else chosen[: max_sentences - 1]
    return [*kept, (best, "answer")]


def _one_side(text: str) -> str | None:
    """'gpu' or 'tpu' when ``text`` names that accelerator and not the other; else None."""
    voc = vocabulary()
    gpu, tpu = voc.gpu.search(text) is not None, voc.tpu.search(text) is not None
    return None if gpu == tpu else "gpu" if gpu else "tpu"


def _beside_lead(lead: Candidate, cands: list[Candidate], taken: set[str]) -> Candidate | None:
    """The sentence right before or after ``lead`` in its section when the two each name one side, a
    different one, neither is a verdict, and it can stand in an answer; else None."""
    side = _one_side(lead.text)
    # a verdict ("a team that runs large GPU clusters well can stay on GPUs") has for its neighbour the
    # other verdict, not the same matter on the other side
    if side is None or is_verdict(lead.text):
        return None
    for c in cands:
        if (c.chunk.chunk_id == lead.chunk.chunk_id and abs(c.position - lead.position) == 1 and c.text not in taken
                and _one_side(c.text) not in (None, side) and not is_verdict(c.text) and not is_hedge(c.text)
                and dangling_opener(c.text) is None):
            return c
    return None


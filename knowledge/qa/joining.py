"""The ``answer`` text: sentences with their citation markers, and a question's asks in order.

Every sentence is printed verbatim with the ``[chunk_id]`` it is quoted from; a two-sided
answer puts each side on its own line under "For GPUs:" / "For TPUs:"; a question of
several asks gets one line per ask under the ask's short label.

A later ask often leans on the one before it ("... are we charged for that? and what should
we do next time?", "(2) what do I use instead for a loop?"): read alone it names nothing of
the domain, and the scope checks call it out of scope although the notes answer it. So a
later ask that declines for want of evidence or scope is asked again with the ask before it
as its context (:func:`answer_asks`), provided it may lean on that context: it points back
at it (a pronoun or ellipsis, ``asks.toml``'s ``leans``), or the learned gate did not find it
out of the domain on its own ("(2) what is the capital of France?" stays declined). When the
sentence that answers it was already quoted for an earlier ask, quoting it again beats a
false "the notes do not cover this".
"""

from __future__ import annotations

from collections.abc import Callable

from knowledge.qa.answers import Answer, AnswerSentence, Citation
from knowledge.qa.asks import Ask
from knowledge.qa.curated import NOTES_PREFIX
from knowledge.qa.splitting import leans_on_context

__all__ = ["join_sentences", "join_asks", "answer_asks", "ANSWER_ONE", "CONTEXT_REASONS"]

#: Declines a later ask may owe to reading it without its context. Not a figure or code request,
#: an instruction to the bot or an object the notes never name: context does not change those.
CONTEXT_REASONS = frozenset({"out_of_scope", "no_evidence", "no_answer"})
#: ``(text to search, the ask, sentences not to quote again, sentences later asks lead with) -> its answer``.
ANSWER_ONE = Callable[[str, Ask, frozenset[str], frozenset[str]], Answer]


def answer_asks(
    asks: list[Ask], answer_one: ANSWER_ONE, may_carry: Callable[[Ask, Answer], bool], context: str = "",
) -> list[Answer]:
    """Each ask's answer in order; no sentence quoted twice, unless a later ask has no other answer.

    An ask that declines for one of :data:`CONTEXT_REASONS` is asked again with what came
    before it: a later ask (when ``may_carry(ask, answer before it)``) with the ask before it as that one was
    answered; the first ask with the question's ``context``, the statements before its
    numbered or separate asks ("Looking at spot TPUs to cut costs. 1) what's the catch?
    2) ..."), which frame every ask after them. First still without the sentences already
    quoted, then with them. The retry is taken only when it answers; its lead must still
    answer the ask's own type, which ``answer_one`` checks as for any ask."""
    parts: list[Answer] = []
    used: set[str] = set()
    searched = ""  # what the ask before was answered with
    # each later ask's lead, asked alone: an earlier ask may lead with it, but not quote it in support
    leads = [""] + [_lead_of(answer_one(one.query, one, frozenset(), frozenset())) for one in asks[1:]]
    for i, one in enumerate(asks):
        reserved = frozenset(lead for lead in leads[i + 1:] if lead)
        part = answer_one(one.query, one, frozenset(used), reserved)
        searched_now = one.query
        before = searched if i > 0 else context
        if part.declined and before and part.decline_reason in CONTEXT_REASONS and (i == 0 or may_carry(one, parts[-1])):
            carried = f"{before} {one.text}"
            # an ask searched with this very context already: only the re-quote is left. One that
            # names its own thing ("how do we actually stop the meter between experiments?") is
            # answered by the best sentence for it, quoted above or not: excluding it gave "a TPU
            # that stalls ... is still billed", not "deleting the TPU VM ... stops the charge". One
            # that points back ("what do we do instead?") must not be given the answer it points at.
            tries = [(carried, frozenset(used)), (carried, frozenset())][1 if carried == one.query else 0:]
            if not leans_on_context(one.text):
                tries = tries[::-1]
            for query, exclude in tries:
                retry = answer_one(query, one, exclude, reserved)
                if not retry.declined:
                    part, searched_now = retry, query
                    break
        used.update(s.text for s in part.sentences)
        parts.append(part)
        searched = searched_now
    return parts


def _lead_of(answer: Answer) -> str:
    return "" if answer.declined or not answer.sentences else answer.sentences[0].text


_HEADINGS = {"gpu": "For GPUs:", "tpu": "For TPUs:"}


def join_sentences(sentences: list[AnswerSentence]) -> str:
    """The ``answer`` string: sentences with inline ``[chunk_id]`` markers, one line per side."""
    lines: list[str] = []
    current_role: str | None = None
    for s in sentences:
        piece = f"{s.text} [{s.chunk_id}]"
        if s.role in _HEADINGS and s.role != current_role:
            lines.append(f"{_HEADINGS[s.role]} {piece}")
        elif lines and current_role == s.role:
            lines[-1] += " " + piece
        else:
            lines.append(piece)
        current_role = s.role
    return "\n".join(lines)


def _notes_inline(text: str) -> str:
    """A curated part's "Based on the notes: [..]" line folded into the line before it.

    Between the labelled parts of one answer, a line of bare citation markers reads as an empty
    part (readers of fq12 said so); after the paragraph it rests on, the markers still cite the notes.
    """
    out: list[str] = []
    for line in text.split("\n"):
        if line.startswith(NOTES_PREFIX) and out:
            out[-1] = f"{out[-1]} {line[len(NOTES_PREFIX):].strip()}"
        else:
            out.append(line)
    return "\n".join(out)


def join_asks(question: str, asks: list[Ask], parts: list[Answer], notices: list[str], mode: str) -> Answer:
    """One answer to a question of several asks: each ask's answer in order, under its label.

    A part that declines says so in its own line; the whole declines only when every part does.
    """
    lines: list[str] = []
    citations: list[Citation] = []
    seen: set[str] = set()
    for ask, part in zip(asks, parts):
        body = part.answer.replace("\n", " ") if part.declined else _notes_inline(part.answer)
        lines.append(f"{ask.label}: {body}")
        for c in part.citations:
            if c.chunk_id not in seen:
                seen.add(c.chunk_id)
                citations.append(c)
    declined = all(p.declined for p in parts)
    return Answer(
        question=question,
        answer=parts[0].answer if declined else "\n".join(lines),
        declined=declined,
        citations=[] if declined else citations,
        sentences=[s for p in parts for s in p.sentences],
        notices=list(notices),
        mode="declined" if declined else mode,
        intent=parts[0].intent,
        decline_reason=parts[0].decline_reason if declined else "",
        ask="multi",
        parts=parts,
    )

"""The order of work for a question of several asks (knowledge.qa.joining.answer_asks).

The engine is replaced by a recorded table of what each search would answer, so every branch of
the retry is reached on purpose; the real engine runs the same path in tests/engine/test_asks_answered.py.
"""

from __future__ import annotations

from knowledge.qa.answers import Answer, AnswerSentence
from knowledge.qa.asks import Ask
from knowledge.qa.curated import NOTES_PREFIX
from knowledge.qa.joining import answer_asks, join_asks
from knowledge.qa.splitting import leans_on_context


def _ask(text: str) -> Ask:
    return Ask(text=text, label=text[:10])


def _said(query: str, *sentences: str) -> Answer:
    return Answer(question=query, answer=" ".join(sentences), declined=False,
                  sentences=[AnswerSentence(text=s, chunk_id="f:c0000") for s in sentences])


def _declined(query: str, reason: str) -> Answer:
    return Answer(question=query, answer="The notes do not cover this question.", declined=True, decline_reason=reason)


def test_a_later_ask_is_retried_with_its_context_then_may_quote_again() -> None:
    calls: list[tuple[str, frozenset[str]]] = []

    def answer_one(query: str, one: Ask, used: frozenset[str], reserved: frozenset[str] = frozenset()) -> Answer:
        calls.append((query, used))
        if query == "is an idle TPU billed?":
            return _said(query, "A provisioned TPU is billed.")
        if query == "is an idle TPU billed? what do we do instead?" and not used:
            return _said(query, "A provisioned TPU is billed.")  # its only answer was quoted already
        return _declined(query, "out_of_scope")

    parts = answer_asks([_ask("is an idle TPU billed?"), _ask("what do we do instead?")], answer_one, lambda a, b: True)
    assert [p.declined for p in parts] == [False, False]
    assert calls.pop(0) == ("what do we do instead?", frozenset())  # the later ask's lead, asked alone first
    assert [q for q, _ in calls] == [
        "is an idle TPU billed?", "what do we do instead?",
        "is an idle TPU billed? what do we do instead?", "is an idle TPU billed? what do we do instead?",
    ]
    assert calls[1][1] == calls[2][1] == frozenset({"A provisioned TPU is billed."}) and calls[3][1] == frozenset()


def test_a_later_ask_naming_its_own_thing_gets_its_best_sentence_even_if_quoted_above() -> None:
    # fq50-24: "how do we actually stop the meter?" after the billing part; its answer, "deleting the
    # TPU VM stops the charge", was part of the billing part's answer, and excluding it gave a weaker one
    calls: list[tuple[str, frozenset[str]]] = []

    def answer_one(query: str, one: Ask, used: frozenset[str], reserved: frozenset[str] = frozenset()) -> Answer:
        calls.append((query, used))
        if query == "is an idle TPU billed?":
            return _said(query, "A provisioned TPU is billed.", "Deleting the TPU VM stops the charge.")
        if query.startswith("is an idle TPU billed? ") and not used:
            return _said(query, "Deleting the TPU VM stops the charge.")
        if query.startswith("is an idle TPU billed? "):
            return _said(query, "An idle TPU is still billed.")
        return _declined(query, "out_of_scope")

    ask = _ask("how do we actually stop the meter between experiments?")
    assert not leans_on_context(ask.text)
    parts = answer_asks([_ask("is an idle TPU billed?"), ask], answer_one, lambda a, b: True)
    assert parts[1].sentences[0].text == "Deleting the TPU VM stops the charge."
    assert calls[3][1] == frozenset()  # (after the lead asked alone) the retry without exclusions came first


def test_no_retry_when_the_ask_may_not_lean_on_its_context_or_declined_for_another_reason() -> None:
    seen: list[str] = []

    def answer_one(query: str, one: Ask, used: frozenset[str], reserved: frozenset[str] = frozenset()) -> Answer:
        seen.append(query)
        return _said(query, "XLA compiles graphs.") if query.startswith("what is XLA") else _declined(query, "out_of_scope")

    parts = answer_asks([_ask("what is XLA?"), _ask("best pizza in NYC?")], answer_one, lambda a, b: False)
    assert parts[1].declined and seen == ["best pizza in NYC?", "what is XLA?", "best pizza in NYC?"]

    def figure(query: str, one: Ask, used: frozenset[str], reserved: frozenset[str] = frozenset()) -> Answer:
        seen.append(query)
        return _said(query, "XLA compiles graphs.") if query.startswith("what is XLA") else _declined(query, "no_figure")

    seen.clear()
    parts = answer_asks([_ask("what is XLA?"), _ask("how much does it cost per hour?")], figure, lambda a, b: True)
    assert parts[1].decline_reason == "no_figure" and len(seen) == 3


def test_pronouns_and_ellipsis_lean_on_context_and_a_new_subject_does_not() -> None:
    assert leans_on_context("what do I use instead for a loop?")
    assert leans_on_context("and like what should we do next time?")
    assert not leans_on_context("what is the capital of France?")


def test_a_curated_part_cites_its_notes_on_its_own_line_not_as_an_empty_part() -> None:
    curated = Answer(question="q2", answer=f"Pallas writes TPU kernels. [faq:c0001]\n{NOTES_PREFIX} [n:c0002] [n:c0003]",
                     declined=False, mode="curated", sentences=[AnswerSentence(text="Pallas writes TPU kernels.", chunk_id="faq:c0001")])
    joined = join_asks("q1? q2?", [_ask("q1"), _ask("q2")], [_said("q1", "A TPU is an ASIC."), curated], [], "hybrid")
    lines = joined.answer.splitlines()
    assert len(lines) == 2 and not any(line.startswith(NOTES_PREFIX) for line in lines), joined.answer
    assert lines[1].endswith("Pallas writes TPU kernels. [faq:c0001] [n:c0002] [n:c0003]"), lines[1]


def test_the_first_ask_is_retried_with_the_statements_before_the_asks() -> None:
    """"Looking at spot TPUs to cut costs. 1) what's the catch? 2) ..." : the first ask alone looked
    out of scope; the question's own context frames it, and the next ask is carried with what
    actually answered the first (fq27)."""
    seen: list[str] = []

    def answer_one(query: str, one: Ask, used: frozenset[str], reserved: frozenset[str] = frozenset()) -> Answer:
        seen.append(query)
        if query == "Looking at spot TPUs. what's the catch?":
            return _said(query, "Spot TPUs can be interrupted.")
        if query == "Looking at spot TPUs. what's the catch? what do we change?":
            return _said(query, "Save checkpoints often.")
        return _declined(query, "out_of_scope")

    asks = [_ask("what's the catch?"), _ask("what do we change?")]
    parts = answer_asks(asks, answer_one, lambda a, b: True, context="Looking at spot TPUs.")
    assert [p.declined for p in parts] == [False, False]
    assert seen == ["what do we change?", "what's the catch?", "Looking at spot TPUs. what's the catch?",
                    "what do we change?", "Looking at spot TPUs. what's the catch? what do we change?"]
    # without context the first ask is not retried
    seen.clear()
    assert answer_asks(asks[:1], answer_one, lambda a, b: True)[0].declined and seen == ["what's the catch?"]


def test_an_earlier_ask_leaves_a_later_asks_lead_to_it() -> None:
    """"What's going on and what should we change first?": the fix is the second ask's answer. The
    first may lead with it, but not quote it in support, which left the second ask "stay on GPUs"
    (fq65-26)."""
    fix = "Store the data in sharded files near the TPU."

    def answer_one(query: str, one: Ask, used: frozenset[str], reserved: frozenset[str] = frozenset()) -> Answer:
        if query == "what's going on?":
            return _said(query, *[s for s in ("The chip waits for data.", fix) if s not in reserved])
        return _said(query, *[s for s in (fix, "Stay on GPUs while exploring.") if s not in used])

    parts = answer_asks([_ask("what's going on?"), _ask("what should we change first?")], answer_one, lambda a, b: True)
    assert [[s.text for s in p.sentences] for p in parts] == [["The chip waits for data."], [fix, "Stay on GPUs while exploring."]]

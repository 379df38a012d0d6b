"""The parts of a situation told before a watch ask (knowledge.qa.facets), and how their risks join the answer."""

from __future__ import annotations

from knowledge.qa.answers import AnswerSentence, Citation
from knowledge.qa.facets import MAX_FACETS, MAX_WITH_FACETS, situation_facets, with_facets


def _sentence(text: str, chunk: str) -> AnswerSentence:
    return AnswerSentence(text=text, chunk_id=chunk)


def _citation(chunk: str) -> Citation:
    return Citation(label=f"[{chunk}] notes.md p1-1", chunk_id=chunk, source="notes.md", pages="p1-1", score=0.5)


def test_the_parts_are_the_sentences_told_before_the_asking_one():
    question = ("We move our vision training to TPUs next month. Images are decoded on the fly by the trainer. "
                "Budget is fine. What should we watch out for?")
    facets = situation_facets(question, "What should we watch out for?")
    assert facets == ["We move our vision training to TPUs next month.", "Images are decoded on the fly by the trainer."]


def test_a_question_told_in_one_sentence_has_no_parts_and_at_most_max_facets_are_searched():
    assert situation_facets("what should we watch out for on TPUs?", "what should we watch out for on TPUs?") == []
    told = " ".join(f"Our pipeline stage number {n} decodes images with custom kernels." for n in range(6))
    assert len(situation_facets(told + " What should we watch for?", "What should we watch for?")) == MAX_FACETS


def test_each_part_brings_one_risk_that_shares_its_words_and_no_verdict():
    lead = _sentence("Porting a model to a TPU takes weeks rather than days.", "a:c0001")
    support = _sentence("Debugging on a TPU is harder than on a GPU.", "a:c0002")
    found = {
        "Images are decoded on the fly.": ([_sentence("Images decoded on the host keep the chip waiting.", "b:c0001")],
                                           [_citation("b:c0001")]),
        "We love our GPUs dearly.": ([_sentence("Pick a GPU when the model still changes often.", "c:c0001")],
                                     [_citation("c:c0001")]),  # a verdict: no risk
        "Our bill is large.": ([_sentence("Storage and networking feed the chip.", "d:c0001")],
                               [_citation("d:c0001")]),  # shares no word of the part
    }
    seen: list[frozenset[str]] = []

    def answer(part: str, said: frozenset[str]) -> tuple[list[AnswerSentence], list[Citation]]:
        seen.append(said)
        return found[part]

    sentences, citations = with_facets([lead, support], [_citation("a:c0001"), _citation("a:c0002")], list(found), answer)
    assert [s.text for s in sentences] == [lead.text, "Images decoded on the host keep the chip waiting.", support.text]
    assert [c.chunk_id for c in citations] == ["a:c0001", "b:c0001", "a:c0002"]  # in reading order
    assert seen[0] == {lead.text} and lead.text in seen[1]  # what is already said is never searched again
    assert len(sentences) <= MAX_WITH_FACETS


def test_without_a_risk_from_any_part_the_answer_is_unchanged():
    lead = _sentence("Porting a model to a TPU takes weeks rather than days.", "a:c0001")
    sentences, citations = with_facets([lead], [_citation("a:c0001")], ["Our bill is large."],
                                       lambda part, said: ([], []))
    assert sentences == [lead] and [c.chunk_id for c in citations] == ["a:c0001"]



def test_a_realistic_ask_takes_a_verdict_only_when_it_is_about_the_part():
    # "A TPU is a weaker choice for serving inputs of widely varying length" answers "inputs vary wildly in
    # length"; "a small team that fine-tunes ... in PyTorch is better served by GPUs" shares only "PyTorch"
    # with "our team trains a vision model in PyTorch" and is another team's advice
    lead = _sentence("TPU inference works well at high volume.", "a:c0001")
    about = _sentence("Pick a GPU for serving inputs of widely varying length.", "b:c0001")
    other = _sentence("Pick a GPU when a small team fine-tunes now and then in PyTorch.", "c:c0001")
    found = {"Inputs vary wildly in length.": ([about], [_citation("b:c0001")]),
             "We train a vision model in PyTorch.": ([other], [_citation("c:c0001")])}

    def answer(words: str, said: frozenset[str]) -> tuple[list[AnswerSentence], list[Citation]]:
        return found[words]

    kept, _ = with_facets([lead], [_citation("a:c0001")], list(found), answer, verdicts=True)
    dropped, _ = with_facets([lead], [_citation("a:c0001")], list(found), answer)
    assert [s.text for s in kept] == [lead.text, about.text] and [s.text for s in dropped] == [lead.text]

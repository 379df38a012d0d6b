"""Answers stay on the question: the right curated entry or none, no riding-along sentences,
the sentence that settles a narrow comparison first, and figure traps declined.

These are the failure shapes a held-out read of the answers found (issue 11); each test
asks the real engine over the shipped notes.
"""

from __future__ import annotations

import re

import pytest

from knowledge.evaluation.lint import lint_answer
from knowledge.qa.compose import is_verdict
from knowledge.qa.lexical import tokenize


def test_british_and_american_spellings_share_their_tokens():
    assert tokenize("why is my TPU utilisation low") == tokenize("why is my TPU utilization low")
    assert tokenize("optimised pipelines") == tokenize("optimized pipelines")


def test_chat_shorthand_shares_the_notes_tokens():
    assert tokenize("varying seq lens, bf16 vs fp32, low util") == tokenize(
        "varying sequence lengths, bfloat16 vs float32, low utilization")
    assert tokenize("our dataloader is slow") == tokenize("our data loader is slow")
    assert tokenize("sequence") == ["sequenc"]  # the notes' own words are untouched


def test_a_compound_typed_closed_shares_the_tokens_of_the_notes_hyphenated_one():
    # "why are elementwise-heavy models bad on tpu" missed the notes' "element-wise" section (fq94-21,
    # fq57-02); the British fold used to bend "elementwise" into "elementwize" before the lookup
    assert tokenize("elementwise-heavy models") == tokenize("element-wise-heavy models")
    assert tokenize("multicloud, onprem or finetuning") == tokenize("multi-cloud, on-prem or fine-tuning")
    assert tokenize("utilisation") == tokenize("utilization")  # the fold still runs on each word


def test_a_question_worded_like_a_faq_heading_but_asking_something_else_is_not_curated(qa):
    # Close to "When should we stay on GPUs rather than move to TPUs?", but no sentence of
    # that entry says how to keep the move open.
    answer = qa.ask("How can we keep the option of moving to TPUs later?")
    assert not answer.declined and answer.mode == "hybrid"
    assert "JAX" in answer.answer


def test_a_glossary_neighbour_does_not_ride_along_with_a_definition(qa):
    answer = qa.ask("What is an MXU?")
    assert not answer.declined
    assert all("MXU" in s.text for s in answer.sentences), answer.answer


def test_a_narrow_comparison_leads_with_the_sentence_that_settles_it(qa):
    answer = qa.ask("Which is more forgiving of a slow data pipeline, a GPU or a TPU?")
    assert not answer.declined and answer.intent == "comparison"
    assert "forgiving" in answer.sentences[0].text and answer.sentences[0].role == "verdict"
    assert lint_answer(answer, qa.embedder, budget=6) == []


def test_a_misspelt_choice_about_custom_kernels_leads_with_the_verdict_not_the_porting_advice(qa):
    # fq76-08, fq78-07, fq79-14: three writers asked it; "shoud"/"shuld" hid the choice, and
    # "... is easier to keep on GPUs" was no verdict shape, so "each one is best kept beside a
    # plain version ... or budgeted for a rewrite in Pallas" led
    for question in ("we use alot of custom cuda kernels shoud we even bother looking at tpu",
                     "we got a ton of custom cuda kernels shuld we go tpu or stay on gpu"):
        answer = qa.ask(question)
        assert not answer.declined and answer.ask == "choice", answer.answer
        lead = answer.sentences[0].text
        assert is_verdict(lead) and "GPU" in lead and "Pallas" not in lead, answer.answer


def test_the_trade_off_between_the_two_leads_with_the_sentence_that_weighs_both(qa):
    # fq76-36, fq78-19, fq82-05: three writers asked for "the principal trade-off" in design-doc words
    # and got a one-sided sentence; "the trade-offs we accept by committing to TPUs" (plural) asks for
    # the costs of one side and keeps its list
    answer = qa.ask("For the design review, please summarise the principal trade-off between adopting GPUs and adopting TPUs.")
    assert not answer.declined and "balance between the freedom to pivot and the power to scale" in answer.sentences[0].text
    costs = qa.ask("For the design document: what are the principal trade-offs we accept by committing to TPUs rather than GPUs?")
    assert not costs.declined and "balance between" not in costs.sentences[0].text, costs.answer


def test_a_trouble_told_at_length_is_answered_with_its_fix_and_its_cause(qa):
    # fq73-27, fq78-23: "what's going on?" after an idle-TPU story was answered with two fixes and never
    # said that the chip waits for data; the fix still leads, a cause from its section closes the answer
    answer = qa.ask("We moved training to a TPU slice last month. The model compiled fine, but profiling shows "
                    "the chips are busy maybe a third of the time. The dataset lives in a cloud storage bucket and "
                    "we read it with a fairly naive loader ported from our GPU setup. What's going on?")
    assert not answer.declined and answer.ask == "diagnose", answer.answer
    texts = [s.text for s in answer.sentences]
    assert any("cannot feed" in t or "becomes the bottleneck" in t for t in texts[1:]), answer.answer
    assert not any("jax.jit" in t or "Concretization" in t for t in texts), answer.answer


def test_a_choice_keeps_the_best_neutral_sentence_after_its_verdict(qa):
    answer = qa.ask("We have a big PyTorch codebase and want to try TPUs on GCP. What should we expect?")
    assert not answer.declined and answer.intent == "situational"
    assert is_verdict(answer.sentences[0].text)
    assert "PyTorch/XLA" in answer.answer
    assert lint_answer(answer, qa.embedder, budget=6) == []


@pytest.mark.parametrize(
    "question",
    ["python if on a traced value breaks jit, what do i use instead", "jax if statement under jit?",
     # a code request the notes answer with the call to use (fq61): the construct, not a refusal
     "can someone paste how to write a loop that depends on a tensor value inside jax.jit, a plain while keeps blowing up"],
)
def test_data_dependent_control_flow_under_jit_is_answered_with_lax(qa, question):
    answer = qa.ask(question)
    assert not answer.declined and answer.intent in ("how", "code")
    assert "lax.cond" in answer.answer or "lax.while_loop" in answer.answer


def test_a_hedge_never_leads_an_answer(qa):
    """"When neither list fits cleanly, ..." points at lists the answer has not shown; a lead chosen by
    a preference that checked only openers let it open "whats the diff between a gpu and a tpu"."""
    from knowledge.qa.leads import is_hedge

    for question in ("whats the diff between a gpu and a tpu", "gpu vs tpu, what's the difference?"):
        answer = qa.ask(question)
        assert not answer.declined and not is_hedge(answer.sentences[0].text), answer.answer


@pytest.mark.parametrize(
    "question",
    ["What is the HBM capacity of a TPU v5e chip?", "Are TPUs faster than H100s?", "How many MXUs does a TPU v5p core have?"],
)
def test_spec_and_benchmark_traps_are_declined(qa, question):
    answer = qa.ask(question)
    assert answer.declined and answer.intent == "figure" and answer.citations == []



def test_a_choice_whose_every_verdict_is_on_another_matter_leads_with_the_answer_alone(qa):
    # fq99-25, fq99-21: read as a choice, these led with "Float64 ... stays on GPUs" or "Models whose
    # code still changes every week ..." and padded "For GPUs / For TPUs" sides
    answer = qa.ask("It matters where we do the image decoding and tokenization when training on TPU? "
                    "We thought to do it on the TPU itself, because it is so fast.")
    assert not answer.declined and re.search(r"tf\.data|Grain|host", answer.sentences[0].text), answer.answer
    assert "For GPUs:" not in answer.answer and len(answer.sentences) == 1, answer.answer
    # a choice that tells a situation still leads with its verdict
    chosen = qa.ask("We're still exploring and our model changes every week, all in PyTorch. GPU or TPU for us?")
    assert chosen.sentences[0].role == "verdict", chosen.answer

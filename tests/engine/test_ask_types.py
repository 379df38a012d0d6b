"""The ask's answer type by meaning (knowledge.qa.ask_model), end to end with the shipped model.

The wordings are this file's own, not any writer's: each is a shape the cues and intent
prototypes typed wrong before the model (a yes/no or how after a team's situation went to the
engine as a "choice"; "whats the usual trick?" read as a definition), beside shapes whose cue or
structure must still decide.
"""

from __future__ import annotations

import numpy as np
import pytest

from knowledge.qa import ask_model
from knowledge.qa.ask_model import ask_type, model_decides
from knowledge.qa.service import QAEngine


def _typed(qa: QAEngine, question: str) -> str:
    vec = qa.encode_query(question)
    return ask_type(question, qa.intents.classify(question, vec).name, vec, qa.encode_query)


@pytest.mark.parametrize(("question", "expected"), [
    # situations followed by an ask that is not the team's choice
    # "is X still needed?" is a yes/no and a does-it-matter at once: refitted with fq34, the model
    # reads the second; either leads with the loss-scaling sentence (test below), never a verdict
    ("We train on 8 A100s in fp16. Once we're on a TPU with bf16, is the loss scaler still needed?", "yes_no|does_matter"),
    ("Our PyTorch model has three custom CUDA kernels and leadership wants a TPU trial. What has to change in the code?", "how"),
    ("our inputs range from 10 to 900 tokens and the TPU recompiles for each new length. whats the standard trick?", "how"),
    # cues and structure that still decide
    ("We're a 3-person team on AWS fine-tuning in PyTorch. Should we switch to TPUs?", "choice"),
    ("gpu or tpu?", "compare"),
    ("We run only on Google Cloud. Does vendor lock-in matter for us?", "does_matter"),
    ("Our JAX job on a v4 pod shows the chips idle half the time. What's going on?", "diagnose"),
    # a plan already made, then its pitfalls (fq36, fq37, fq38): the model read the team's plan as a choice
    ("We want to serve a chat model on TPU, but prompts go from 5 tokens to 8k. Anything we should watch out for?", "watch"),
    ("we've decided to try our PyTorch model on TPU via PyTorch/XLA. anything I should keep an eye on?", "watch"),
    # fq44-12: "what gotchas should I brace myself for" read as the team's choice, answered with a verdict
    ("ok so we're finally moving our big transformer over to TPUs next month, what gotchas should I brace myself for?", "watch"),
    ("why would a TPU sit idle?", "why"),
    ("what is XLA?", "what_is"),
])
def test_asks_are_typed_by_what_they_ask(qa: QAEngine, question: str, expected: str) -> None:
    assert _typed(qa, question) in expected.split("|")


def test_the_model_decides_only_where_no_trusted_cue_does() -> None:
    assert model_decides("we use TPUs on GCP. whats the usual trick?", "definition")  # a what-is cue it overrules
    assert model_decides("our chips idle. anything we can do", "situational")  # no cue at all
    assert not model_decides("why would a TPU sit idle?", "why")  # a why cue held out better than the model
    assert not model_decides("TPU or GPU for serving?", "comparison")  # the two accelerators: structure decides
    assert not model_decides("what is the memory bandwidth of a v4?", "figure")
    # an open comparison said in words ("pros and cons", "vs") is never the model's; a question that
    # only names both accelerators is (fq23-24: "what should a team on GPUs do now to keep a TPU
    # move open?" is a how, which the comparison intent alone had typed an open comparison)
    assert not model_decides("pros and cons of TPUs versus GPUs?", "comparison")
    assert model_decides("we stay on GPUs for now but may go to TPUs later. anything to do today?", "comparison")
    # ... while when to pick one accelerator stays the open comparison it was (a verdict leads)
    assert not model_decides("When is a TPU the right call?", "comparison")
    # ... but what choosing one costs is asked for as things (fq64-17), and the model types it
    assert model_decides("beyond the hourly rate, what are the principal costs of standardizing on TPUs?", "comparison")


def test_a_how_ask_that_names_both_accelerators_is_typed_how(qa: QAEngine) -> None:
    question = "we're on GPUs for now but might move to TPUs next year. anything we should do today so the switch isn't painful?"
    vec = qa.encode_query(question)
    intent = qa.intents.classify(question, vec).name
    assert intent == "comparison"  # the prototypes see two accelerators
    assert ask_type(question, intent, vec, qa.encode_query) == "how"


def test_without_a_model_the_cues_and_prototypes_type_the_ask(qa: QAEngine) -> None:
    question = "Our PyTorch model has three custom CUDA kernels and leadership wants a TPU trial. What has to change in the code?"
    vec = qa.encode_query(question)
    intent = qa.intents.classify(question, vec).name
    ask_model.install(None, off=True)
    try:
        before = ask_type(question, intent, vec, qa.encode_query)
    finally:
        ask_model.install(None)
    assert before != "how" and ask_type(question, intent, vec, qa.encode_query) == "how"
    assert ask_type(question, intent, None) == before  # no vector: no model either
    shipped = ask_model.ask_model()
    assert shipped is not None and np.all(np.isfinite(shipped.weights))


def test_the_answer_follows_the_type(qa: QAEngine) -> None:
    # a yes/no after a situation is answered from the notes, not by the recommendation engine
    from bot.advice import advise

    advice = advise(qa, "We train on 8 A100s in fp16. Once we're on a TPU with bf16, is the loss scaler still needed?")
    assert not advice.answer.answer.startswith("Recommendation:"), advice.answer.answer
    assert "loss scaling" in advice.answer.sentences[0].text, advice.answer.answer


@pytest.mark.slow  # every measured batch encoded
def test_refitting_from_the_repository_reproduces_the_committed_model(qa: QAEngine) -> None:
    from knowledge.evaluation.fit_asks import feature_rows, fit_ask_model, load_labelled_asks

    asks = load_labelled_asks()
    x, _, keep, _ = feature_rows(asks, qa.encode_query, lambda q, v: qa.intents.classify(q, v).name)
    rows = np.asarray(keep, dtype=bool)
    refit = fit_ask_model(x[rows], [a.label for a, k in zip(asks, keep) if k], [])
    shipped = ask_model.AskModel.load(ask_model.DEFAULT_DIR)
    assert refit.manifest.types == shipped.manifest.types and refit.manifest.n == shipped.manifest.n
    assert np.allclose(refit.weights, shipped.weights, atol=1e-3), "the committed ask model is stale: run hwbot fit-asks"

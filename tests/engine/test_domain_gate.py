"""The learned out-of-domain gate (knowledge.qa.domain_gate) on questions written for these tests:
near-domain how-tos, figure and date requests and code requests decline, while questions the
notes cover, in chatty or typo'd wording, are still answered. Real model, real index."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from pydantic import ValidationError

from knowledge.evaluation.fit_gate import fit_gate, never_gate
from knowledge.qa import domain_gate
from knowledge.qa.observation import observe

NEAR_DOMAIN = [
    "what helm values turn on time-slicing in the nvidia device plugin?",
    "nvidia-smi lists zero GPUs inside my docker container, how do I pass them through?",
    "our k8s pods on GKE can't see the A100s, the driver installer daemonset keeps crashlooping. steps to fix?",
    "what year did google ship the v2 tpu",
    "how many watts does a v4 chip draw, exact number",
    "can u writ a pallas kernel for layernorm",
    "write me a flax model that shards a transformer across 4 tpu chips, full code",
    "tl;dr how do I install nvidia drivers on ubuntu pls",
]

COVERED_ODD_WORDING = [
    "yo does a tpu bill me when it's just sitting waiting on the input pipeline",
    "hiya, unrelated to the sprint: will our tensorflow models run on tpus?",
    "tpu any good for a net thats mostly elementwise ops??",
    "whats XLA do for us exactly",
    "r custom kernels even possible on tpu",
    "we r 2 ppl doing small finetunes, gpu still the sane pick?",
]


def test_the_committed_gate_loads_and_rejects_a_manifest_that_does_not_match_its_features():
    gate = domain_gate.gate_model()
    assert gate is not None and gate.manifest.dim == 384 and 0.5 < gate.manifest.threshold <= 1.0
    bad = gate.manifest.model_dump() | {"scalars": ["top_chunk"]}
    with pytest.raises(ValidationError):
        domain_gate.GateModel.model_validate(bad)


@pytest.mark.parametrize("question", NEAR_DOMAIN)
def test_near_domain_how_tos_figures_and_code_requests_decline(qa, question):
    answer = qa.ask(question)
    assert answer.declined and answer.answer.startswith("The notes do not cover this question"), answer.answer
    assert not answer.citations


@pytest.mark.parametrize("question", COVERED_ODD_WORDING)
def test_covered_questions_in_odd_wording_are_answered(qa, question):
    answer = qa.ask(question)
    assert not answer.declined, answer.answer
    assert answer.citations


def test_the_gate_itself_separates_near_domain_asks_from_covered_ones(qa):
    gate = domain_gate.gate_model()
    assert gate is not None

    def probability(q: str) -> float:
        obs = observe(qa, q)
        assert obs.evidence is not None
        return float(gate.probability(domain_gate.gate_features(obs.qvec, obs.evidence))[0])

    near = [probability(q) for q in NEAR_DOMAIN[:3] + NEAR_DOMAIN[5:6]]
    covered = [probability(q) for q in COVERED_ODD_WORDING]
    assert min(near) >= gate.manifest.threshold, near
    assert max(covered) < gate.manifest.threshold, covered


def test_without_the_gate_a_near_domain_how_to_is_answered_with_loose_sentences(qa):
    """The gate is what declines it: the similarity thresholds alone let it through."""
    question = NEAR_DOMAIN[5]  # a code request with a typo ("writ")
    domain_gate.install(never_gate())
    try:
        ungated = qa.ask(question)
    finally:
        domain_gate.install(None)
    assert not ungated.declined
    assert qa.ask(question).declined


def test_fitting_finds_a_confident_threshold_on_separable_rows():
    rng = np.random.default_rng(1)
    dim = 384
    x = np.vstack([rng.normal(0.0, 1.0, (60, dim + 6)), rng.normal(0.0, 1.0, (60, dim + 6)) + 2.0])
    y = np.concatenate([np.zeros(60), np.ones(60)])
    gate = fit_gate(x, y, ["synthetic"], dim=dim)
    assert gate.manifest.oof_in_declined <= 0.02 and gate.manifest.oof_out_declined >= 0.9
    p = gate.probability(x)
    assert (p[y == 0] >= gate.manifest.threshold).mean() <= 0.02


#: covered, but the chatty opening puts it nearer an out-of-scope prototype than an in-scope one
PROTOTYPE_SAYS_OUT = "bit of a newbie question, be gentle: what actually is Pallas?"
FAR_AFTER_A_PREAMBLE = [
    "quick break from the GPU debates: whats a good pasta recipe for 12 people?",
    "unrelated but - can someone recommend a good standing desk?",
]


def test_a_confident_gate_overrules_an_out_of_scope_prototype(qa):
    text, _ = qa.clean(PROTOTYPE_SAYS_OUT)
    assert qa.intents.classify(text, qa.encode_query(text)).name == "out_of_scope"
    answer = qa.ask(PROTOTYPE_SAYS_OUT)
    assert not answer.declined and answer.citations and "Pallas" in answer.answer, answer.answer
    assert answer.intent == "definition"
    gate = domain_gate.gate_model()
    assert gate is not None and 0.0 < gate.manifest.in_threshold < gate.manifest.threshold
    never_admits = domain_gate.Gate(gate.manifest.model_copy(update={"in_threshold": 0.0}), gate.weights)
    domain_gate.install(never_admits)
    try:
        assert qa.ask(PROTOTYPE_SAYS_OUT).declined  # the prototypes alone would decline it
    finally:
        domain_gate.install(None)


@pytest.mark.parametrize("question", FAR_AFTER_A_PREAMBLE)
def test_far_questions_after_a_domain_preamble_stay_declined(qa, question):
    answer = qa.ask(question)
    assert answer.declined and not answer.citations, answer.answer


def test_an_asking_clause_is_judged_with_the_accelerator_its_preamble_named(qa):
    # fq82-17, fq83-11: two writers' "our TPU quota got approved! what should we watch for ...?" was
    # declined: alone, "what should we watch for so we don't burn money on it?" reads as a price question
    answer = qa.ask("Morning all, our TPU quota finally got approved!! What should we watch for so we don't burn money on it?")
    assert not answer.declined and answer.citations, answer.answer
    assert any("billed" in s.text or "idle" in s.text for s in answer.sentences), answer.answer
    # the preamble's accelerator does not make a far question ours
    assert qa.ask("we use TPUs at work. unrelated: what's a good pizza place near the office?").declined


def test_a_situation_told_at_length_is_judged_whole_not_by_its_generic_asking_clause(qa):
    # "How do we track down what is going wrong?" alone reads as a debugging ask the notes cover; what
    # it asks about is the cluster's hang, which they do not. Only a chat preamble lets the clause speak.
    question = ("Our four-node on-prem A100 cluster talks over InfiniBand. Since last Tuesday's kernel update, "
                "all-reduce hangs at random in our FSDP jobs, and nobody touched the training code. "
                "How do we track down what is going wrong?")
    answer = qa.ask(question)
    assert answer.declined and not answer.citations, answer.answer
    # the clause still rescues a covered question from a short chatty preamble
    assert not qa.ask("hiya, unrelated to the sprint: will our tensorflow models run on tpus?").declined


def test_the_admit_threshold_must_sit_below_the_decline_threshold():
    gate = domain_gate.gate_model()
    assert gate is not None
    with pytest.raises(ValidationError):
        domain_gate.GateModel.model_validate(gate.manifest.model_dump() | {"in_threshold": gate.manifest.threshold})


@pytest.mark.slow
def test_refitting_from_the_repository_reproduces_the_committed_gate(qa):
    """The weights are data rebuilt by ``hwbot fit-gate``, never edited by hand: a labelled file
    changed without a refit fails here."""
    from knowledge.evaluation.fit_gate import REPO_FILES, feature_matrix, load_labelled

    sources = [load_labelled(path) for path in REPO_FILES]
    x = np.vstack([feature_matrix(qa, [q for q, _ in items]) for items in sources])
    y = np.concatenate([np.asarray([o for _, o in items], dtype=np.float64) for items in sources])
    refit = fit_gate(x, y, [path.name for path in REPO_FILES], known_sources=sorted({c.source_id for c in qa.store.chunks}))
    committed = domain_gate.gate_model()
    assert committed is not None
    assert refit.manifest.fitted_on == committed.manifest.fitted_on
    assert (refit.manifest.n_in, refit.manifest.n_out) == (committed.manifest.n_in, committed.manifest.n_out)
    np.testing.assert_allclose(refit.weights, committed.weights, atol=1e-4)
    assert refit.manifest.threshold == pytest.approx(committed.manifest.threshold, abs=1e-4)
    assert refit.manifest.in_threshold == pytest.approx(committed.manifest.in_threshold, abs=1e-4)
    assert refit.manifest.known_sources == committed.manifest.known_sources


def test_the_gate_leaves_questions_about_a_teams_own_notes_to_the_evidence_thresholds(qa):
    """The gate learned what the shipped notes cover; a question whose best evidence (by meaning and
    by words) lies only in a note the team added is not its to decline, one that touches a shipped
    note still is."""
    gate = domain_gate.gate_model()
    assert gate is not None and gate.manifest.known_sources
    assert set(gate.manifest.known_sources) == {c.source_id for c in qa.store.chunks}
    question = "whats a good substitute for buttermilk in pancakes"
    obs = observe(qa, question)
    assert gate.declines(obs.qvec, obs.evidence)  # far out, about the shipped notes: declined
    theirs = replace(obs.evidence, lead_sources=("file_team_notes",))
    assert not gate.judges(theirs) and not gate.declines(obs.qvec, theirs)
    mixed = replace(obs.evidence, lead_sources=("file_team_notes", gate.manifest.known_sources[0]))
    assert gate.judges(mixed) and gate.declines(obs.qvec, mixed)


def test_a_request_about_the_answers_form_is_judged_without_it(qa):
    """fq44-01: "in one line pls" pulled "pallas = ?" out of the domain for the gate fitted before
    fq44 joined its training (probability 0.77), so the call is made again on the question without
    it, with its own evidence; a question out of the domain stays declined either way."""
    from knowledge.qa.intent import form_free

    assert form_free("pallas = ? in one line pls") == "pallas = ?"
    assert form_free("tl;dr: what is XLA, thanks") == "what is XLA" and form_free("what is XLA?") == ""
    answer = qa.ask("pallas = ? in one line pls")
    assert not answer.declined and "Pallas" in answer.answer and answer.answer.count("[") == 1, answer.answer
    assert qa.ask("whats the capital of france, in one line pls").declined


def test_slips_of_the_notes_words_do_not_push_a_covered_question_out(qa):
    # fq85-07: as written the gate put it out (0.71); with "evryone" and "learnin" respelt it is
    # confidently in (0.09). Only a confident admission of the respelt text counts: a near-domain
    # how-to with a slip ("servng") comes nearer the line but stays declined.
    answer = qa.ask("why is evryone on gpus by default for deep learnin anyway")
    assert not answer.declined and answer.citations, answer.answer
    assert "default" in answer.sentences[0].text, answer.answer
    assert qa.ask("how do i quantize my model to int8 for servng on a tpu, whats the best tool for that").declined

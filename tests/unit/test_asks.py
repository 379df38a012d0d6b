"""The asks of a question: splitting, answer types, what a lead must do, key objects, odd input.

Pure text: no model. The engine-level behaviour is in tests/engine/test_asks_answered.py.
"""

from __future__ import annotations

import pytest

from knowledge.qa.abstain import refuse_input
from knowledge.qa.asks import answer_type, ask_data, focus_of
from knowledge.qa.hygiene import clean_question
from knowledge.qa.leads import answers_ask, foreign_language, is_hedge, key_objects, names_object
from knowledge.qa.splitting import split_asks


def test_numbered_parts_become_asks_in_order():
    asks, _, dropped = split_asks("(1) does bf16 matter for us? (2) how do we stop recompiling? (3) is a stalled TPU billed?")
    assert [a.text for a in asks] == ["does bf16 matter for us?", "how do we stop recompiling?", "is a stalled TPU billed?"]
    assert dropped == 0 and all(a.label for a in asks)


def test_several_question_marks_and_inner_questions_split():
    asks, context, _ = split_asks("We train on GCP. Why is our TPU idle? Also, where should preprocessing run?")
    assert context == "We train on GCP." and len(asks) == 2 and asks[1].text.startswith("where")
    asks, _, _ = split_asks("our TPU utilization is terrible, what's going on and how do we fix it?")
    assert len(asks) == 2 and asks[1].text == "how do we fix it?"
    assert "utilization" in asks[1].query  # "it" is searched with what it refers to


def test_a_condition_on_the_ask_before_is_searched_with_that_asks_own_referent():
    """ "If not, what is the alternative?" leans on the ask before it, and that ask's "these" leans
    on the situation: the kernels must reach the second ask's search."""
    asks, _, _ = split_asks("We maintain several hand-written CUDA kernels. Can these run on Cloud TPUs as they are? "
                            "If not, what is the alternative?")
    assert len(asks) == 2 and "CUDA kernels" in asks[0].query
    assert "CUDA kernels" in asks[1].query and asks[1].query.endswith("If not, what is the alternative?")
    asks, _, _ = split_asks("(1) is bf16 enough for our training? (2) if not, what should we use?")
    assert "bf16" in asks[1].query


def test_two_question_sentences_merged_into_one_ask_keep_the_situation_before_them():
    # fq43-12: the two short questions merged into one ask, and the debugging story before them was
    # dropped as "context" of asks that no longer existed; "Is that just me" was then declined
    text = ("Ok so honestly debugging on the TPU feels way more painful than on my GPU box - prints show weird stuff. "
            "Is that just me or is it a known thing? Any tricks?")
    asks, context, _ = split_asks(text)
    assert len(asks) == 1 and context == "" and "debugging on the TPU" in asks[0].query


def test_a_short_question_without_an_asking_word_narrows_the_ask_before_it():
    # fq53-09: "On the chip itself?" split off, was answered alone and declined
    text = ("Hey folks quick one: when we train on TPUs, where should stuff like tokenization and image "
            "decoding happen? On the chip itself?")
    asks, _, _ = split_asks(text)
    assert len(asks) == 1 and asks[0].text.endswith("On the chip itself?")
    # a short question that asks on its own still does
    assert len(split_asks("what is XLA? and what is Pallas?")[0]) == 2


def test_a_yes_no_question_after_a_comma_and_is_a_second_ask():
    # fq53-22: the kernels part swallowed the frameworks part
    asks, _, _ = split_asks("Two things: which frameworks can actually target a TPU, and can we bring our "
                            "hand-written CUDA kernels along or do they need redoing?")
    assert [a.text[:16] for a in asks] == ["which frameworks", "can we bring our"]
    assert len(split_asks("what are static shapes and why do they matter?")[0]) == 1


def test_an_announced_number_of_questions_splits_at_the_next_asking_word():
    """"Two questions on debugging: why ..., and what in JAX helps with it?" (fq61): the writer said
    there are two asks, so ", and what ..." starts the second though it opens no sentence; the
    announcement is their context, searched with an ask that leans on it ("it")."""
    asks, context, _ = split_asks("Two questions on debugging: why is it so much more painful on a TPU than on a GPU, "
                                  "and what in JAX helps with it?")
    assert [a.text for a in asks] == ["why is it so much more painful on a TPU than on a GPU", "what in JAX helps with it?"]
    assert context == "Two questions on debugging" and "debugging" in asks[0].search
    # without an announcement, or with a single one, "X and why Y?" stays one ask
    for one in ("what are static shapes and why do they matter?", "Quick question: is a TPU cheaper and is it faster?",
                "Question: what is XLA and why does a TPU need it?"):
        assert len(split_asks(one)[0]) == 1, one


def test_an_emoji_that_closes_a_chat_statement_ends_its_sentence():
    # fq85-15: "our TPU quota finally got approved 🎉 Before we kick off ..., what should we watch for?" asked
    # about quota by its focus and was declined; the news is context, the watch ask is the focus
    assert focus_of("Hey folks, our TPU quota finally got approved 🎉 Before we kick off the first big run, "
                    "what should we watch for?") == "Before we kick off the first big run, what should we watch for?"
    # an emoji inside the asking sentence does not cut it
    assert focus_of("we use pytorch 🔥 on 4x A100, is a tpu worth it?") == "we use pytorch 🔥 on 4x A100, is a tpu worth it?"


def test_a_single_ask_keeps_its_whole_situation():
    text = "We are a small PyTorch team on AWS. Should we look at TPUs?"
    asks, _, _ = split_asks(text)
    assert [a.text for a in asks] == [text] and asks[0].label == ""


def test_fifty_sub_questions_are_bounded():
    asks, _, dropped = split_asks(" ".join(f"Q{i}: what is XLA number {i}?" for i in range(50)))
    assert len(asks) == ask_data().max_asks and dropped == 50 - ask_data().max_asks


def test_a_pasted_log_keeps_only_its_question():
    log = "E0101 12:00:01.123 worker_3 step=100 loss=nan /usr/lib/python3/x.py:12 [xla] retrace=7 " * 12
    asks, _, _ = split_asks(log + "why does this keep recompiling on our tpu?")
    assert asks[0].text == "why does this keep recompiling on our tpu?"


@pytest.mark.parametrize(
    "question, intent, expected",
    [
        ("does bf16 matter for us?", "yes_no", "does_matter"),
        # fq6-14: "for us on TPU" had made a team already on TPUs a choice, answered "GPU, since GPUs are the default"
        ("Honestly I'm not sure, does that still matter for us on TPU?", "comparison", "does_matter"),
        ("GPU or TPU for us? we are a small pytorch team", "comparison", "choice"),
        ("Finance is asking why the bill is so high. What should we be watching for here?", "situational", "watch"),
        ("how do we stop recompiling?", "how", "how_to_fix"),
        # the trouble named before the comma is the topic; the clause after it asks
        ("our jax training loop keeps recompiling, how do i stop it?", "how", "how_to_fix"),
        ("why does it keep recompiling?", "why", "diagnose"),
        ("I get ConcretizationTypeError under jit. How I should change the code so it works?", "how", "how_to_fix"),
        ("is a stalled TPU billed?", "yes_no", "yes_no"),
        ("Is bfloat16 or float32 the native format on TPUs?", "yes_no", "which_one"),
        ("our TPU utilization is terrible, what's going on", "situational", "diagnose"),
        ("We use PyTorch on AWS. Should we switch to TPUs?", "situational", "choice"),
        ("Compare GPUs and TPUs.", "comparison", "compare"),
        ("is 3 weeks to port our model realistic?", "yes_no", "realistic"),
        ("What is the price per hour?", "figure", "figure"),
        ("Who makes TPUs?", "definition", "what_is"),
        # a slip of a cue word is read as the word (fq79-14, fq76-08: answered with a how-to before)
        ("we got a ton of custom cuda kernels shuld we go tpu or stay on gpu", "comparison", "choice"),
        ("our model relies on custom cuda kernels, shoud we even bother looking at tpus", "situational", "choice"),
        ("hey folks, writing the roadmap doc: what should we keep an eye on if we commit to TPUs?", "definition", "watch"),
        ("For our architecture review: how would standardising on TPUs constrain our cloud strategy?", "situational", "how"),
        # a language asked for, not code (fq78-03 was declined as a code request)
        ("what do i actually write TPU code in?", "definition", "what_is"),
        ("Which framework I should write my model code in so it run on TPU?", "definition", "which_one"),
        # whether a thing can be done "for us" is no choice of accelerator (fq91-05 was led by "GPUs can
        # be rented from any major cloud", the verdict a choice wants, over "cannot rent TPUs at all")
        ("We only use Azure. Is it possible for us to get TPUs there, or do we need another cloud?", "definition", "yes_no"),
        # "whats the catch" asks for the catch as "what is the catch" does (fq94-10: led by a verdict)
        ("we're a pytorch shop, whats the catch for us?", "how", "watch"),
        ("what's the catch with spot TPUs?", "definition", "watch"),
    ],
)
def test_answer_types(question, intent, expected):
    assert answer_type(question, intent) == expected


def test_a_lead_must_do_what_the_ask_wants():
    assert answers_ask("which_one", "Mixed precision in bfloat16 is native on TPUs.", ("bf16", "fp32"))
    assert not answers_ask("which_one", "A GPU is the safe default.", ("bf16", "fp32"))
    assert answers_ask("how_to_fix", "Deleting a TPU VM when no job runs is the way to stop its charge.")
    assert not answers_ask("how_to_fix", "TPUs were designed by Google.")
    hedge = "When neither list fits cleanly, the choice depends on porting time."
    assert is_hedge(hedge) and not answers_ask("why", hedge)


def test_key_objects_are_near_domain_things_and_shapes():
    objs = key_objects("How do I run TPU jobs under Slurm on EKS in us-east1 with driver 535.104 for a 30% speedup?")
    assert objs == ["slurm", "eks", "us-east1", "driver", "535.104", "30%"]
    assert key_objects("Why would a TPU sit idle?") == []
    # pasted code is the user's program, not a version or figure asked about
    assert key_objects("under jit, `if loss > 0.5: x = x * 0.5` breaks. fix?") == []
    assert key_objects("```\nlr = 3.0e-4\nstep(x, 0.5)\n```\nwhy does this retrace on driver 535.104?") == ["driver", "535.104"]
    assert names_object("spot", ["Spot or preemptible TPUs cost less per hour."])
    assert not names_object("eks", ["GPUs are sold by every major cloud."])


@pytest.mark.parametrize("text", ["¿Qué es una TPU y cuándo conviene usarla?", "Was ist eine TPU und wann sollte man sie benutzen?", "TPUとGPUの違いは何ですか"])
def test_another_language_is_recognised(text):
    assert foreign_language(text) and refuse_input(text) == "language"


@pytest.mark.parametrize("text", ["tpu billing idle time explained", "gpu vs tpu pls", "is a TPU a good idea for us?"])
def test_terse_english_is_not_taken_for_another_language(text):
    assert not foreign_language(text) and refuse_input(text) is None


@pytest.mark.parametrize("text", ["!!! ??? ...", "🙂🙂🙂", "?"])
def test_only_punctuation_or_emoji_is_no_question(text):
    assert refuse_input(text) == "no_question"


def test_the_asking_sentence_decides_the_type_not_its_preamble():
    # a stated situation before a yes/no or does-it-matter question is context
    assert focus_of("We run on Google Cloud only. Does lock-in still matter for us?") == "Does lock-in still matter for us?"
    # a pasted quote before the question ends its sentences at its line breaks: the 71% of a disk
    # is not what is asked about (fq31-28 was declined as saying nothing about 71%)
    pasted = clean_question("[pasted]\n> disk usage on /scratch at 71%\nok unrelated: which models make a TPU shine?")[0]
    assert focus_of(pasted) == "ok unrelated: which models make a TPU shine?"
    assert answer_type("We run on Google Cloud only. Does lock-in still matter for us?", "situational") == "does_matter"
    assert answer_type("hi team - our model is in TensorFlow; must we rewrite it for TPUs?", "situational") == "yes_no"
    assert answer_type("Prefetch is on already. What else could we try to keep the chip busy?", "situational") == "how_to_fix"
    # a real choice for the team still goes to the engine
    assert answer_type("We are a PyTorch shop on AWS. Should we switch to TPUs?", "situational") == "choice"
    assert answer_type("We have a JAX codebase on GCP. What should we expect from TPUs?", "situational") != "what_is"


def test_numbered_options_of_one_ask_stay_one_ask():
    """Items that only name what the ask chooses between are not asks of their own (fq27)."""
    text = ("Which of these gains more from a TPU: (a) pretraining a dense transformer for weeks, "
            "or (b) a graph search dominated by data-dependent branching? A short reason please.")
    asks, _, _ = split_asks(text)
    assert [a.text for a in asks] == [text]
    # items that ask on their own still split, after a preamble ending in a colon too
    asks, context, _ = split_asks("For the budget memo: (a) when is a TPU cheaper than a GPU? (b) list the hidden costs.")
    assert context == "For the budget memo:" and [a.text for a in asks] == ["when is a TPU cheaper than a GPU?", "list the hidden costs."]


def test_an_asks_label_is_its_asking_words_not_the_situation_before_them():
    # fq53-28: the first of two asks was labelled "Last week we moved our speech recognition..."
    text = ("Last week we moved our speech recognition training onto a TPU slice. The profiler shows a lot of time "
            "in compilation. What's going on and how do we fix it?")
    assert [a.label for a in split_asks(text)[0]] == ["What's going on", "how do we fix it"]


def test_an_ask_split_off_before_its_question_mark_is_focused_on_its_asking_sentence():
    # fq54-28: "... 2 to 30 seconds ... What is going on" was a figure request by the situation's numbers
    text = ("Audio clips range from 2 to 30 seconds and we batch them as they come. The logs show compile messages "
            "all the time. What is going on and how do we fix it?")
    first = split_asks(text)[0][0]
    assert focus_of(first.text) == "What is going on"
    assert focus_of("We run on GCP. Is that a problem?") == "Is that a problem?"


def test_a_series_of_questions_in_one_sentence_is_one_ask_each():
    # fq90-36: "what's HBM" went unanswered inside one ask about MXUs and pod slices
    asks, context, _ = split_asks("reading a spec sheet and kinda lost 🙃 what's an MXU, what's HBM, and is a pod slice the same thing as a pod?")
    assert [a.text for a in asks] == ["what's an MXU", "what's HBM", "is a pod slice the same thing as a pod?"]
    assert context.startswith("reading a spec sheet")
    # two clauses are one question: a condition and its ask, or an ask and its follow-up
    for question in ("Does Google Cloud offer academic discounts on TPU hours, and what is the application process?",
                     "When we use TPU, where should the preprocessing run?",
                     "what is XLA, and why does it matter for TPUs?"):
        assert len(split_asks(question)[0]) == 1, question

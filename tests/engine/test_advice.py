"""Situational questions: profile_from_text reads the team, the engine gives the verdict, the answer cites it."""

from __future__ import annotations

import re

from bot.advice import CALLS_IT, MAX_OPEN_QUESTIONS, advise
from knowledge.recommend import profile_from_text

EXAMPLE = "we're on AWS, PyTorch with a few custom CUDA kernels, 8 GPUs, the model changes every week"
LABEL = re.compile(r"^\[[a-z0-9_]+:c\d{4}\] \S+ p\d+-\d+$")


def test_the_issue_example_is_understood_field_by_field() -> None:
    got = profile_from_text(EXAMPLE)
    assert got.answers() == {
        "cloud": "other_single_cloud", "framework": "pytorch", "custom_kernels": "some",
        "scale": "multi_device", "architecture_changes": "often",
    }
    # every field points at the words it came from
    for evidence in got.fields.values():
        assert EXAMPLE[evidence.span[0]:evidence.span[1]] == evidence.evidence


def test_text_that_states_nothing_about_the_team_sets_no_field() -> None:
    for text in ["What is a TPU?", "Is a TPU cheaper than a GPU?", "why would a TPU sit idle?", ""]:
        assert profile_from_text(text).answers() == {}, text


def test_a_pod_is_massive_and_our_own_datacenter_is_on_prem() -> None:
    assert profile_from_text("we train on a TPU pod").answers().get("scale") == "massive"
    assert profile_from_text("everything runs in our own datacenter").answers().get("cloud") == "on_prem"


def test_a_situational_question_gets_the_verdict_with_cited_reasons(qa) -> None:  # type: ignore[no-untyped-def]
    advice = advise(qa, "We're a small team fine-tuning in PyTorch on AWS with 8 GPUs, should we look at TPUs?")
    assert advice.answer.intent == "situational"
    assert advice.recommendation is not None and advice.recommendation.recommendation == "gpu"
    assert advice.answer.answer.startswith("Recommendation: GPU")
    assert advice.answer.citations and all(LABEL.match(c.label) for c in advice.answer.citations)
    contract = advice.to_contract()
    assert contract["profile"]["cloud"] == "other_single_cloud"
    assert contract["recommendation"]["recommendation"] == "gpu"
    assert len(contract["recommendation"]["next_questions"][:MAX_OPEN_QUESTIONS]) <= MAX_OPEN_QUESTIONS


def _verdict_note(line: str) -> tuple[str, str]:
    """The reason a verdict line gives and its first chunk ("Recommendation: X, since <note> [chunk] ..."):
    the note, and after ", and" a deciding engine reason when there is one."""
    found = re.fullmatch(r"Recommendation: (?:GPU now, TPU later|GPU|TPU), (?:since|because) (.+?)((?: \[[a-z0-9_]+:c\d{4}\])+)", line)
    assert found is not None, line
    return found.group(1), re.findall(r"[a-z0-9_]+:c\d{4}", found.group(2))[0]


def test_the_notes_answer_for_the_team_is_the_reason_of_the_verdict_it_argues_for(qa) -> None:  # type: ignore[no-untyped-def]
    question = ("We're three engineers on AWS. Every month or two we fine-tune an open 7B model in PyTorch, "
                "each job runs about a day. Should we switch to TPUs?")
    advice = advise(qa, question)
    assert advice.recommendation is not None and advice.recommendation.recommendation == "gpu"
    lines = advice.answer.answer.split("\n")
    # the notes' own answer to the question (porting weeks against day-long jobs), cited, is the
    # verdict's reason in the first sentence; the engine's rules follow as its reasons, none said twice
    from knowledge.qa.sides import argues_for

    said, cited = _verdict_note(lines[0])
    assert cited in {c.chunk_id for c in advice.answer.citations}
    quoted = next(s for s in advice.answer.sentences if s.chunk_id == cited and s.role == "answer")
    assert said[1:].startswith(quoted.text[1:].rstrip("."))
    note = quoted.text
    assert argues_for(note) == "gpu" and "port" in note.lower()
    assert all(note[1:] not in r.sentence for r in advice.recommendation.reasons)
    # the engine's first reason blocks a TPU on AWS (a move to Google Cloud): it decides the verdict
    # alone, so it joins the note in the first sentence and is not repeated below it
    deciding = advice.recommendation.reasons[0]
    assert deciding.effect.startswith("blocker:") and "Google Cloud" in deciding.sentence
    assert said.endswith(", and " + deciding.sentence[:1].lower() + deciding.sentence[1:])
    assert lines[1].startswith("Read from your message: ")
    assert any(line.startswith("The engine's reason: ") for line in lines[2:])
    assert not any(deciding.sentence in line for line in lines[1:])


def test_the_notes_answer_is_quoted_whatever_role_its_lead_plays(qa) -> None:  # type: ignore[no-untyped-def]
    # the notes' answer to a choice often leads with a sentence of its own verdict role ("Stay on
    # GPUs while ..."); it is a note sentence all the same, and it argues for the engine's verdict
    # (worded so that the lead is a verdict the engine's reasons do not already say: since the lead map
    # of 2026-12-08, "We're a research lab; ..." leads with "Pick a GPU when ...", one of those reasons)
    question = "research lab here, our architecture changes weekly and everything is PyTorch. what should we run on?"
    answer = qa.ask(question)
    assert answer.sentences and answer.sentences[0].chunk_id
    advice = advise(qa, question)
    assert advice.recommendation is not None and advice.recommendation.recommendation == "gpu"
    said, cited = _verdict_note(advice.answer.answer.split("\n")[0])
    assert cited == answer.sentences[0].chunk_id and said[1:].startswith(answer.sentences[0].text[1:].rstrip("."))


def test_a_notes_answer_arguing_against_the_verdict_is_not_shown_as_its_reason(qa) -> None:  # type: ignore[no-untyped-def]
    from knowledge.qa.sides import argues_for

    explains = {"gpu": ("gpu",), "tpu": ("tpu",), "gpu_then_tpu": ("gpu", "tpu")}
    # the textbook TPU case with kernels, pipeline and time unsaid is "GPU now, TPU later", which a
    # note arguing for TPUs explains; a small PyTorch team on AWS gets GPU and a note arguing for GPUs
    for question in ["We train a 70B model in JAX on GCP on 512 chips, the architecture is frozen. TPU or GPU?",
                     "We're a small team fine-tuning in PyTorch on AWS with 8 GPUs, should we look at TPUs?"]:
        advice = advise(qa, question)
        assert advice.recommendation is not None
        note, _ = _verdict_note(advice.answer.answer.split("\n")[0])
        assert argues_for(note) in explains[advice.recommendation.recommendation], note
    # on Azure the engine says GPU while the notes' answer is "the strongest case for a TPU": not
    # shown under the verdict as if it were its reason
    question = "We're on Azure and our model is a stable transformer trained for weeks at large scale in JAX. Should we use TPUs?"
    lead = next(s for s in qa.ask(question).sentences if s.chunk_id)
    assert argues_for(lead.text) == "tpu"
    advice = advise(qa, question)
    assert advice.recommendation is not None and advice.recommendation.recommendation == "gpu"
    assert lead.text[1:] not in advice.answer.answer


def test_a_verdict_too_close_to_call_yields_the_lead_to_the_notes_arguing_the_other_way(qa) -> None:  # type: ignore[no-untyped-def]
    # outside writers (fq22, fq23, fq31): the textbook TPU case with kernels, cadence and time unsaid
    # led with "Recommendation: GPU, since GPUs are the default", a verdict only about half the ways
    # the open answers could go keep; the notes' own answer ("the strongest case for a TPU") now
    # leads, and the engine's line says what would settle it (not that it "cannot call it": under a
    # lead that took a side, an engineer read that as a contradiction, fq80-25, fq81-34)
    from knowledge.qa.sides import argues_for

    question = ("We're about to pretrain a 30B decoder-only transformer in JAX. The architecture is frozen, "
                "the run will take around two months, and the company is already all-in on GCP. GPU or TPU?")
    advice = advise(qa, question)
    assert advice.recommendation is not None and advice.recommendation.confidence < CALLS_IT
    lines = advice.answer.answer.split("\n")
    assert not lines[0].startswith("Recommendation:"), lines[0]
    assert argues_for(re.sub(r" \[[^\]]+\]$", "", lines[0])) == "tpu", lines[0]
    assert lines[-1].startswith("Whether that holds for your team turns on"), lines[-1]
    assert "/recommend" in lines[-1] and "cannot call it" not in lines[-1]
    assert all(c.chunk_id in lines[0] for c in advice.answer.citations[:1])
    # a verdict the open answers mostly keep still leads with itself
    sure = advise(qa, "We're a small team fine-tuning in PyTorch on AWS with 8 GPUs, should we look at TPUs?")
    assert sure.answer.answer.startswith("Recommendation: GPU")


def test_a_question_about_the_hardware_is_answered_from_the_notes(qa) -> None:  # type: ignore[no-untyped-def]
    advice = advise(qa, "Why would a TPU sit idle?")
    assert advice.recommendation is None and advice.profile is None
    assert "profile" not in advice.to_contract() and not advice.answer.declined


def test_a_choice_question_about_our_own_setup_goes_to_the_engine(qa) -> None:  # type: ignore[no-untyped-def]
    question = "We train a 70B model in JAX on GCP on 512 chips, the architecture is frozen. TPU or GPU?"
    advice = advise(qa, question)
    assert advice.recommendation is not None and advice.profile is not None
    assert advice.reading is not None
    assert {f: e.value for f, e in advice.reading.stated.items()} == {
        "architecture_changes": "rarely", "framework": "jax", "cloud": "google_cloud",
        "workload": "training", "scale": "massive",
    }
    # the scored profile adds what those imply, shown apart as implied
    assert advice.profile.known() == {
        "architecture_changes": "rarely", "framework": "jax", "cloud": "google_cloud",
        "workload": "training", "scale": "massive", "stage": "stabilizing", "team_expertise": "xla",
    }
    assert advice.to_contract()["implied"]["stage"]["value"] == "stabilizing"
    assert "implied: stage stabilizing" in advice.answer.answer
    # the textbook TPU workload, with kernels, pipeline and time unsaid: staged, never plain GPU
    assert advice.recommendation.recommendation == "gpu_then_tpu"
    assert advice.answer.answer.startswith("Recommendation: GPU now, TPU later")
    assert "of the ways the open questions could be answered keep it" in advice.answer.answer


def test_a_general_choice_question_stays_with_the_notes(qa) -> None:  # type: ignore[no-untyped-def]
    for question in ["TPU or GPU for massive training?", "Is a TPU cheaper than a GPU for training in JAX?"]:
        advice = advise(qa, question)
        assert advice.recommendation is None, question


def test_a_gpu_verdict_still_names_the_strongest_answer_against_it(qa) -> None:  # type: ignore[no-untyped-def]
    advice = advise(qa, "We're on AWS with critical custom CUDA kernels, training on 256 GPUs. Should we move to TPUs?")
    assert advice.recommendation is not None and advice.recommendation.recommendation == "gpu"
    against = [r for r in advice.recommendation.reasons if r.direction == "against"]
    # reasons are the engine's rule explanations, not note sentences: labelled as such
    assert against and f"The engine's reason against: {against[0].sentence}" in advice.answer.answer


def test_a_how_asked_after_a_situation_is_not_the_engines_choice(qa) -> None:  # type: ignore[no-untyped-def]
    # no ask cue: the whole question reads as situational, the asking sentence alone reads as a how
    question = ("Our PyTorch/XLA job on a TPU v4 runs far slower than on our A100s. "
                "Which settings should we look at first?")
    advice = advise(qa, question)
    assert advice.answer.ask != "choice" and advice.recommendation is None, advice.answer.answer
    assert not advice.answer.answer.startswith("Recommendation:"), advice.answer.answer


def test_a_diagnostic_question_about_our_setup_is_answered_from_the_notes(qa) -> None:  # type: ignore[no-untyped-def]
    question = ("We train a stable transformer in JAX on Google Cloud TPUs and the chips sit idle half the time. "
                "What's going on?")
    advice = advise(qa, question)
    assert not advice.answer.answer.startswith("Recommendation:"), advice.answer.answer
    assert re.search(r"idle|wait|feed", advice.answer.sentences[0].text), advice.answer.answer
    # a rich situation may close with one line giving the engine's verdict, pointing at /recommend
    closing = [line for line in advice.answer.answer.splitlines() if "recommendation engine" in line]
    assert len(closing) <= 1 and all("/recommend" in line for line in closing)


def test_facts_the_user_stated_are_never_listed_as_open(qa) -> None:  # type: ignore[no-untyped-def]
    advice = advise(qa, "We're a PyTorch team on AWS doing inference. Should we switch to TPUs?")
    open_line = next((line for line in advice.answer.answer.splitlines() if line.startswith("Still open")), "")
    assert "framework" not in open_line and "cloud" not in open_line and "workload" not in open_line


def test_a_message_not_in_english_is_not_guessed_at(qa) -> None:  # type: ignore[no-untyped-def]
    advice = advise(qa, "Wir trainieren ein großes Modell mit JAX auf TPUs, sollten wir wechseln?")
    assert advice.profile is None and advice.recommendation is None
    assert advice.answer.declined and advice.answer.decline_reason == "not_english"
    assert "English" in advice.answer.answer and "intake" in advice.answer.answer


def test_a_factual_yes_no_question_from_a_team_is_answered_from_the_notes(qa) -> None:  # type: ignore[no-untyped-def]
    # a team states its setup and asks a fact, not a choice: the notes' sentence answers, not the engine
    cases = {
        "morning all! quick one - we already write everything in JAX; could we do our early experiments on TPUs?":
            r"prototype|JAX",
    }
    for question, lead in cases.items():
        advice = advise(qa, question)
        assert not advice.answer.declined, question
        assert not advice.answer.answer.startswith("Recommendation:"), (question, advice.answer.answer)
        assert advice.answer.mode != "recommendation", (question, advice.answer.answer)
        assert re.search(lead, advice.answer.sentences[0].text), (question, advice.answer.answer)


def test_a_team_on_google_cloud_asking_whether_lock_in_matters_gets_the_lock_in_sentence(qa) -> None:  # type: ignore[no-untyped-def]
    question = "We already live entirely on Google Cloud. Does being tied to one provider still matter for us?"
    advice = advise(qa, question)
    assert not advice.answer.declined and advice.answer.mode != "recommendation", advice.answer.answer
    assert re.search(r"locked in|Google Cloud", advice.answer.sentences[0].text), advice.answer.answer


def test_a_tensorflow_team_asking_whether_jax_is_required_gets_the_tensorflow_route_first(qa) -> None:  # type: ignore[no-untyped-def]
    question = "Our whole stack is TensorFlow on Google Cloud. Is porting the model to JAX required before it can run on a TPU?"
    advice = advise(qa, question)
    assert not advice.answer.declined and advice.answer.mode != "recommendation", advice.answer.answer
    assert re.search(r"TensorFlow", advice.answer.sentences[0].text), advice.answer.answer


def test_a_near_domain_how_to_about_something_the_notes_lack_declines_instead_of_a_verdict(qa) -> None:  # type: ignore[no-untyped-def]
    for question in (
        "We're running GPUs in our own racks. Which NCCL environment variables pin all-reduce to the InfiniBand links?",
        "Our run takes 9 days on 32 A100s and we are thinking of a TPU pod. By what percentage would it get faster?",
        "Between TPU benchmarks today I got curious — what's a good way to keep basil alive indoors?",
    ):
        advice = advise(qa, question)
        assert advice.answer.declined and advice.recommendation is None, (question, advice.answer.answer)


def test_a_how_to_from_a_team_already_on_tpus_gets_no_verdict_line(qa) -> None:  # type: ignore[no-untyped-def]
    question = ("We train a speech model in JAX on a v4 pod slice on Google Cloud, 256 chips, and the clips vary "
                "in length so it recompiles every few batches. How do we fix the recompilation?")
    advice = advise(qa, question)
    assert advice.answer.ask == "how_to_fix" and advice.recommendation is None, advice.answer.answer
    assert "recommendation engine" not in advice.answer.answer


def test_a_team_asking_what_to_watch_for_in_its_move_gets_the_risks_and_no_verdict(qa) -> None:  # type: ignore[no-untyped-def]
    # fq66-28, fq67-28: a closing "verdict ...: GPU" second-guessed a move the team had decided
    question = ("We are a PyTorch team on AWS with a couple of custom CUDA ops, and the architecture has been stable "
                "for a year. Leadership approved moving our training to Cloud TPUs next quarter. What should we watch out for?")
    advice = advise(qa, question)
    assert advice.answer.ask == "watch" and advice.recommendation is None, advice.answer.answer
    assert "recommendation engine" not in advice.answer.answer and not advice.answer.declined


def test_an_ask_that_weighs_the_choice_may_close_with_the_verdict(qa) -> None:  # type: ignore[no-untyped-def]
    question = ("We are a PyTorch team on AWS training on 8 GPUs and the architecture changes every week. "
                "Is moving to TPUs next month realistic?")
    advice = advise(qa, question)
    closing = [line for line in advice.answer.answer.splitlines() if "recommendation engine" in line]
    assert advice.answer.ask == "realistic" and len(closing) == 1 and "/recommend" in closing[0], advice.answer.answer


def test_a_verdict_line_that_rests_on_open_answers_says_how_firm_it_is(qa) -> None:  # type: ignore[no-untyped-def]
    question = ("We're a four-person team that fine-tunes open 7B models twice a month, all in PyTorch on AWS. "
                "Is moving to TPUs next quarter realistic?")
    advice = advise(qa, question)
    closing = [line for line in advice.answer.answer.splitlines() if "recommendation engine" in line]
    assert len(closing) == 1 and advice.recommendation is not None, advice.answer.answer
    assert CALLS_IT <= advice.recommendation.confidence < 1.0
    assert closing[0].startswith("The recommendation engine's verdict for the situation you describe: GPU"), closing[0]
    assert f"only {advice.recommendation.confidence:.0%} of the ways" in closing[0], closing[0]
    assert "would settle it" in closing[0] and "/recommend" in closing[0]
    assert not any(f in closing[0] for f in ("framework", "cloud", "workload")), closing[0]  # stated ones


def test_a_verdict_most_open_answers_would_not_keep_is_not_called(qa) -> None:  # type: ignore[no-untyped-def]
    # the notes call this the strongest case for a TPU; the engine is torn only because answers are unsaid
    # (asked whether moving "would be sensible", it is the team's choice, and the engine answers it whole)
    question = ("Our team trains a JAX transformer on Google Cloud; the architecture has been frozen for months "
                "and runs take weeks over hundreds of accelerators. Is it realistic to expect TPU pod slices to pay off?")
    advice = advise(qa, question)
    closing = [line for line in advice.answer.answer.splitlines() if "/recommend" in line]
    assert len(closing) == 1 and advice.recommendation is not None, advice.answer.answer
    rec = advice.recommendation
    assert rec.confidence < CALLS_IT
    # under the notes' TPU case, what would settle it, never "cannot call it" (read as a contradiction)
    assert closing[0].startswith("Whether that holds for your team turns on"), closing[0]
    assert "verdict for the situation" not in closing[0]
    # no split of the open answers: it is the priors over what was not said, and read as a GPU lean
    assert not re.search(r"\d+%", closing[0]), closing[0]
    assert not any(f in closing[0] for f in ("framework", "cloud", "scale", "workload")), closing[0]  # stated ones


def test_a_caution_asked_after_a_plan_is_answered_from_the_notes_not_with_a_verdict(qa) -> None:  # type: ignore[no-untyped-def]
    # fq31-12: "what should we be careful about?" was typed a choice and got the engine's GPU verdict
    question = ("We're thinking about running our three-week pretraining job on spot TPUs to roughly halve the bill. "
                "Nobody here has used preemptible capacity before. What should we be careful about?")
    advice = advise(qa, question)
    assert advice.answer.ask == "watch" and advice.recommendation is None, advice.answer.answer
    assert re.search(r"interrupted", advice.answer.sentences[0].text) and "checkpoint" in advice.answer.sentences[0].text


def test_explain_how_is_a_method_not_a_figure(qa) -> None:  # type: ignore[no-untyped-def]
    # fq31-23: "how large" matched the figure cue and the question was declined for lacking a count
    question = ("Could you explain how large training jobs are distributed across many accelerators on TPUs, "
                "compared with how this is usually done on GPU clusters?")
    advice = advise(qa, question)
    assert not advice.answer.declined and advice.answer.intent != "figure", advice.answer.answer


def test_a_verdict_resting_only_on_the_default_yields_the_lead_to_the_notes(qa) -> None:  # type: ignore[no-untyped-def]
    # every answer the team states pulls towards a TPU; the engine's GPU comes only from "GPUs are
    # the default" and the answers left open, so it must not open the answer with that default
    question = ("our model is written in jax and we're already on gcp; the next run will be a multi-week job "
                "across a lot of chips. tpu or stick with gpus?")
    advice = advise(qa, question)
    assert advice.recommendation is not None and advice.recommendation.recommendation == "gpu", advice.answer.answer
    assert all(r.effect == "default" for r in advice.recommendation.reasons if r.direction == "for")
    assert not advice.answer.answer.startswith("Recommendation:"), advice.answer.answer
    assert "strongest case for a TPU" in advice.answer.sentences[0].text, advice.answer.answer
    assert "recommendation engine's verdict" in advice.answer.answer and "would settle it" in advice.answer.answer


def test_a_staged_verdict_held_back_only_by_unsaid_answers_says_what_it_waits_on(qa) -> None:  # type: ignore[no-untyped-def]
    # fq49-26: the strongest TPU case, "GPU now, TPU later" only because the pipeline and the time
    # budget were not said; the first sentence says so instead of reading as a contradiction
    # (read by the rules alone, as ``advise`` without the learned extractor reads it)
    question = ("We train a JAX transformer on Google Cloud, the architecture is frozen, no custom ops, and cost at "
                "scale matters most. Should we seriously look at TPUs?")
    advice = advise(qa, question)
    rec = advice.recommendation
    assert rec is not None and rec.recommendation == "gpu_then_tpu" and rec.readiness == "pending", advice.answer.answer
    assert rec.waits_on == ["data_pipeline", "optimization_time"], rec.waits_on
    first = advice.answer.answer.splitlines()[0]
    assert first.startswith("Recommendation: GPU now, TPU later") and "pilot one on a small slice now" in first, first
    assert all(f.replace("_", " ") in first for f in rec.waits_on), first
    assert "waits_on" not in rec.to_contract()  # an extension of the object, not of the JSON contract


def test_waits_on_is_empty_unless_the_verdict_is_pending() -> None:
    from knowledge.recommend.profile import WorkloadProfile
    from knowledge.recommend.recommender import recommend

    ready = recommend(WorkloadProfile(stage="production", architecture_changes="rarely", custom_kernels="none",
                                      framework="jax", team_expertise="xla", cloud="google_cloud", workload="training",
                                      scale="massive", data_pipeline="keeps_up", priority="cost_at_scale",
                                      optimization_time="weeks"))
    assert ready.recommendation == "tpu" and ready.waits_on == []
    blocked = recommend(WorkloadProfile(cloud="multi_cloud", framework="jax", scale="massive"))
    assert blocked.readiness != "pending" and blocked.waits_on == []


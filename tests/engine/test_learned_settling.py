"""How the two readers of a team's words settle what they disagree on: the rules' questions the
heads answer, mentions the modifier head reads as past, planned or someone else's, union fields
(clouds, skills) joined from both, and what a dropped mention refuses.

On the real ONNX encoder and the committed heads, like ``test_learned_extractor.py`` (the reader
as a whole: its data, weights, thresholds and bad input), from which these were split by concept.
"""

from __future__ import annotations

from knowledge.recommend.learned.combine import ClauseReader, extract_message


def test_a_denial_of_one_skill_leaves_the_other_said_plainly(reader: ClauseReader) -> None:
    # "no CUDA experience" denies CUDA only: the rules do not read it as neither skill
    text = "The team has deep familiarity with XLA but no CUDA experience."
    assert extract_message(text, reader, "rules").fields.get("team_expertise") is None
    got = extract_message(text, reader).fields["team_expertise"]
    assert got.value == "xla" and "XLA" in got.evidence
    # said in words the rules do not know, the heads read the denial as neither skill: it names XLA
    # only, so the CUDA read in the clause before it is the answer, not a question
    got = extract_message("Everyone on the team is comfortable writing CUDA, but none of us has ever worked with XLA.", reader)
    assert got.fields["team_expertise"].value == "cuda" and not got.confirmations
    # a denial of both stays neither
    assert extract_message("No CUDA skills to speak of, no XLA either.", reader).fields["team_expertise"].value == "neither"


def test_contradictions_and_every_cloud_named_are_asked_never_picked(reader: ClauseReader) -> None:
    for text in ("we're on AWS. we're on GCP.", "AWS, Azure, GCP, Oracle Cloud, CoreWeave, Nebius, RunPod and Paperspace"):
        got = extract_message(text, reader)
        assert "cloud" not in got.fields
        assert [c.field for c in got.confirmations if c.field == "cloud"] == ["cloud"]


def test_a_question_the_rules_ask_is_settled_when_one_value_alone_is_said_plainly(reader: ClauseReader) -> None:
    # past, someone else's: the rules' cue lists miss these wordings and ask "Which is it"; the
    # modifier head reads each mention's clause, and the one plain statement answers
    for text, name, value in [
        ("we were on-prem till last year but now it's all GKE, thank god", "cloud", "google_cloud"),
        ("quick q - we r on jax rn but the folks downstairs use pytorch on AWS, does that matter for us? we're all GCP",
         "framework", "jax"),
    ]:
        assert name not in extract_message(text, reader, "rules").fields, text
        assert any(c.field == name and c.question.startswith("Which is it") for c in extract_message(text, reader, "rules").confirmations)
        got = extract_message(text, reader)
        assert got.fields[name].value == value, text
        assert got.fields[name].evidence.lower() in text.lower() and 0.0 < got.fields[name].confidence <= 1.0
        assert not any(c.field == name for c in got.confirmations)
    # a clause whose subject the rules know is someone else's ("our sister team uses ...") is theirs
    # even when the sentence goes on about the writer's team: the rules alone read the team's JAX
    text = "quick q - we r on jax rn but our sister team uses pytorch on AWS, does that matter for us? we're all GCP"
    assert extract_message(text, reader, "rules").fields["framework"].value == "jax"
    # both said plainly: still a question ("we're on AWS. we're on GCP." above)
    got = extract_message("training is on AWS. inference is on GCP.", reader)
    assert "cloud" not in got.fields or got.fields["cloud"].value == "multi_cloud"


def test_the_heads_answer_the_rules_question_when_they_surely_say_one_of_its_values(reader: ClauseReader) -> None:
    # the rules name both frameworks and ask "Which is it"; the heads read the product's one plainly
    # and surely, and the intern's JAX not even at their medium threshold
    text = "everything is pytorch. we also have some jax notebooks lying around from an intern"
    assert any(c.field == "framework" for c in extract_message(text, reader, "rules").confirmations), text
    got = extract_message(text, reader)
    assert got.fields["framework"].value == "pytorch", text
    assert not any(c.field == "framework" for c in got.confirmations)
    # read in one clause with the product's, or in this sentence's wording, the intern's JAX is a
    # rival the heads half-read (0.79 after the retraining with fm27): asked, never JAX
    for text in ("PyTorch on 4 GPUs, we also have some JAX notebooks lying around from an intern",
                 "we're a PyTorch shop on 4 GPUs. an intern left some old JAX notebooks around"):
        got = extract_message(text, reader)
        assert got.fields["framework"].value == "pytorch" if "framework" in got.fields else any(
            c.field == "framework" and c.question.startswith("Which is it") for c in got.confirmations), text
    # heads that read both values surely (the retraining with fm25 reads "we use jax for side
    # research" as plain JAX use) leave the rules' question standing: never the side project's value
    text = ("ngl we're kinda all over the place lol. we use jax for side research, but the actual product "
            "model is pytorch and that's what i'm asking about.")
    got = extract_message(text, reader)
    assert got.fields["framework"].value == "pytorch" if "framework" in got.fields else any(
        c.field == "framework" and c.question.startswith("Which is it") for c in got.confirmations), text


def test_the_reading_does_not_ask_again_what_the_extraction_read_as_past(reader: ClauseReader) -> None:
    """The contradiction check re-reads sentence by sentence; a mention the modifier head settled
    as past ("Before we used TensorFlow") must not come back as "You wrote X and Y"."""
    from knowledge.recommend.reading import read_message

    text = "We are startup, we use PyTorch on Lambda cloud. Before we used TensorFlow but we moved away."
    read = read_message(text, extract=lambda t: extract_message(t, reader))
    assert read.stated["framework"].value == "pytorch"
    assert not any(c.field == "framework" for c in read.confirmations)
    # a rival the heads' question-settling step read as past is not asked again either
    text = "we're on Azure, er no sorry, our own racks now. Azure was the old setup. serving only."
    read = read_message(text, extract=lambda t: extract_message(t, reader))
    assert read.stated["cloud"].value == "on_prem", text
    assert not any(c.field == "cloud" for c in read.confirmations)
    # two plain statements are still a contradiction, and asked
    read = read_message("We use PyTorch. We use TensorFlow.", extract=lambda t: extract_message(t, reader))
    assert "framework" not in read.stated and any(c.field == "framework" for c in read.confirmations)


def test_a_union_field_joins_the_sides_each_reader_finds_and_drops_a_planned_one(reader: ClauseReader) -> None:
    # the rules know "retrains", only the heads read the live endpoint as serving: both
    text = "our model retrains weekly and also powers the live scoring endpoint for customers"
    assert extract_message(text, reader, "rules").fields["workload"].value == "training"
    got = extract_message(text, reader).fields["workload"]
    assert got.value == "both" and got.evidence == text
    # a side the rules matched inside a plan or a hedge is not the team's: the side said plainly stays
    for text in ("we serve a support bot for our customers. We're thinking about adding our own fine-tuning next year.",
                 "serving: the model answers customer traffic in production. we might add some fine-tuning later"):
        assert extract_message(text, reader, "rules").fields["workload"].value == "both", text
        got = extract_message(text, reader).fields["workload"]
        assert got.value == "inference" and got.evidence.lower() in text.lower(), text
    # a side said as the only one is the answer for the rules alone; a side the rules refused
    # ("we don't train ... at all") is not brought back by the heads from a clause that says "both"
    for text in ("inference only. llama finetune. lambda labs, 2 GPUs.",
                 "Training is complete; the current scope is inference only. Deployment target is Azure.",
                 "We serve fraud-scoring models on both AWS and Azure. We don't train on accelerators at all."):
        assert extract_message(text, reader).fields["workload"].value == "inference", text
    # an explicit answer on a labelled line is left as the user gave it
    assert extract_message("workload: training\nthe model answers live customer traffic", reader).answers()["workload"] == "training"
    # one side said, nothing else: unchanged
    assert extract_message("We fine-tune a 7B model on 8 H100s.", reader).answers()["workload"] == "training"


def test_two_clouds_named_and_read_as_both_are_a_multi_cloud_team(reader: ClauseReader) -> None:
    # the rules ask "google_cloud or other_single_cloud?"; the heads surely read the clause as multi-cloud
    text = "We train on GCP (A3 VMs) and serve from AWS because that's where our customers' VPCs are. PyTorch everywhere."
    assert any(c.field == "cloud" for c in extract_message(text, reader, "rules").confirmations)
    got = extract_message(text, reader)
    assert got.fields["cloud"].value == "multi_cloud", text


def test_clouds_named_plainly_are_a_multi_cloud_team_and_a_planned_or_retracted_one_is_not(reader: ClauseReader) -> None:
    # outside writers (fm17, fm27, fm28): "AWS and Oracle", "RunPod ... Azure" are two clouds the
    # team is on; the rules alone read one "other single cloud" and can only ask
    from knowledge.recommend.reading import read_message

    def cloud(text: str) -> tuple[str | None, list[str]]:
        got = read_message(text, extract=lambda t: extract_message(t, reader))
        held = got.stated.get("cloud")
        return (held.value if held else None), [c.value for c in got.confirmations if c.field == "cloud"]

    for text in ("We run ~2,500 GPUs split across AWS and Oracle for pretraining, pytorch.",
                 "we fine-tune on RunPod because it's cheap and serve on Azure where the customer is"):
        assert read_message(text).stated.get("cloud") is None, text  # the rules alone ask
        assert cloud(text) == ("multi_cloud", []), text
    # a cloud only planned leaves the one said plainly ...
    assert cloud("everything is on Azure for now; the boss wants to move us to GCP next year.") == (
        "other_single_cloud", [])
    # ... and a message that takes back what it named is read as what it names instead, never as both
    assert cloud("we train on AWS, sorry, I mean Azure. pytorch, 4 V100s") == ("other_single_cloud", [])
    assert cloud("we train on AWS, er, I mean GCP. pytorch, 4 V100s") == ("google_cloud", [])


def test_cuda_and_xla_skills_said_apart_are_both(reader: ClauseReader) -> None:
    # fm34-17: the rules read "one CUDA expert" and stopped there; the team knows XLA too
    text = "Team has two people who worked with XLA a lot and one CUDA expert, so we are comfortable on both sides."
    assert extract_message(text, reader).answers()["team_expertise"] == "both"
    # one skill said, the other denied: still one
    assert extract_message("we know CUDA well but nobody has touched XLA", reader).answers()["team_expertise"] == "cuda"


def test_a_planned_mention_does_not_unsettle_a_field_said_plainly(reader: ClauseReader) -> None:
    # "might go hybrid with GCP later" asked "Did you mean multi cloud?" over the plainly said on-prem:
    # the rules' conflict (on_prem, google_cloud) is recorded though a question was asked, and settled
    text = "rn we're on-prem (one 8x A100 DGX), might go hybrid with GCP later but nothing's signed."
    assert "cloud" not in extract_message(text, reader, "rules").fields
    got = extract_message(text, reader)
    assert got.fields["cloud"].value == "on_prem" and not any(c.field == "cloud" for c in got.confirmations)


def test_a_dropped_mention_refuses_its_own_value_not_the_field(reader: ClauseReader) -> None:
    """A negation drops the value it names, not the field: "nothing is in production" drops
    production and the heads read exploration; "not PyTorch nor TensorFlow" drops both and the
    heads read another framework (fm22-27, fm7-17). A drop still refuses its own value, and a
    union's "none of them" needs every side denied: "nobody knows CUDA" is not "neither" (fm8-23)."""
    assert extract_message("For now we only test ideas, nothing is in production.", reader).answers().get("stage") == "exploration"
    got = extract_message("Our framework is self-made engine in C++, not PyTorch nor TensorFlow.", reader)
    assert got.answers().get("framework") == "other"
    for text in ("In our lab we use JAX. Nobody knows CUDA here.", "nobody here knows JAX. tf2/keras codebase.",
                 "two of us did some cuda hacking in grad school but nobody knows XLA at all"):
        assert extract_message(text, reader).answers().get("team_expertise") != "neither", text
    # a clause that names every side is "none of them" though the rules caught the denial of one
    for text in ("honestly we don't know xla or cuda at all, we're analysts who mostly write sql",
                 "our people have no background in CUDA or XLA whatsoever"):
        assert extract_message(text, reader).answers().get("team_expertise") == "neither", text
    assert extract_message("nobody here has written JAX", reader).answers().get("framework") != "jax"

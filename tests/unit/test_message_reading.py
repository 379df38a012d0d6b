"""Bad input for extraction and messages not in English: bounded, explained, nothing invented."""

from __future__ import annotations

import json
import time

import pytest

from knowledge.recommend.message_checks import corrects_itself, is_correction, language_of, shape_of
from knowledge.recommend.reading import NO_WORDS, NOT_ENGLISH, read_message


@pytest.mark.parametrize("text", [
    "Wir trainieren ein großes Modell mit JAX auf TPUs und unsere Pipeline ist schnell genug.",
    "Nous entraînons un modèle avec PyTorch sur AWS, est-ce que les TPU sont pour nous ?",
    "Entrenamos un modelo con PyTorch en AWS y tenemos poco tiempo para las TPU",
    "我们在谷歌云上用JAX训练大模型，应该用TPU吗？",
    "Мы обучаем большую модель на PyTorch в AWS",
])
def test_messages_not_in_english_are_not_guessed_at(text: str) -> None:
    reading = read_message(text)
    assert reading.language == "other" and not reading.read
    assert reading.stated == {} and reading.implied == {} and reading.confirmations == []
    assert reading.notes == [NOT_ENGLISH]
    assert "English" in NOT_ENGLISH and "intake" in NOT_ENGLISH


@pytest.mark.parametrize("text", [
    "JAX GCP 256 chips frozen",
    "we're a small PyTorch team on AWS, should we look at TPUs?",
    "Our team uses PyTorch on Azure with 8 A100s; the model changes weekly.",
    "TPU v5p-512, JAX, Vertex AI, no custom kernels",
])
def test_english_and_jargon_are_read(text: str) -> None:
    assert language_of(text) == "en"
    assert read_message(text).stated


@pytest.mark.parametrize("text", ["1234 5678 90", "🚀🔥😀🙏", "   ", "42", "!!! ??? ..."])
def test_a_message_without_words_is_not_read_and_says_why(text: str) -> None:
    reading = read_message(text)
    assert reading.stated == {} and reading.implied == {} and reading.confirmations == []
    assert reading.notes == ([NO_WORDS] if text.strip() else [NO_WORDS])


def test_a_20000_character_message_is_read_in_part_says_so_and_stays_fast() -> None:
    text = ("We train a large model in JAX on Google Cloud. " + "Lorem ipsum dolor sit amet. " * 800)[:20000]
    started = time.perf_counter()
    reading = read_message(text)
    elapsed = time.perf_counter() - started
    assert any("20,000 characters" in n and "first 4,000" in n for n in reading.notes)
    assert reading.stated["framework"].value == "jax"
    assert elapsed < 2.0  # bounded: sentences read one by one are capped (message_checks.toml)


def test_a_pasted_config_is_flagged_and_only_stated_settings_are_read() -> None:
    yaml = "trainer:\n  framework: pytorch\n  gpus: 16\n  precision: bf16\ncloud: aws\nlr: 0.0003\n"
    reading = read_message(yaml)
    assert shape_of(yaml) == "config"
    assert any("configuration" in n for n in reading.notes)
    assert reading.answers().get("framework") == "pytorch"
    assert set(reading.stated) <= {"framework", "cloud", "scale"}
    blob = json.dumps({"model": {"name": "llama", "layers": 32}, "optimizer": "adamw", "batch": 512})
    assert shape_of(blob) == "config"
    assert read_message(blob).stated == {}


def test_contradictory_statements_become_a_question_not_a_pick() -> None:
    reading = read_message("we're on AWS. we're on GCP.")
    assert "cloud" not in reading.stated and "cloud" not in reading.implied
    assert [c.field for c in reading.confirmations] == ["cloud"]
    assert "?" in reading.confirmations[0].question
    fw = read_message("We use PyTorch for everything. Our whole codebase is JAX.")
    assert "framework" not in fw.stated
    assert any(c.field == "framework" for c in fw.confirmations)


def test_training_here_and_serving_there_is_both_not_a_contradiction() -> None:
    reading = read_message("We train the model ourselves. We also serve it to customers.")
    assert reading.answers().get("workload") == "both"
    assert not any(c.field == "workload" for c in reading.confirmations)


def test_a_message_naming_every_cloud_asks_instead_of_picking() -> None:
    reading = read_message("We have credits on AWS, GCP, Azure, Oracle Cloud, CoreWeave and Lambda Labs; we use PyTorch.")
    assert "cloud" not in reading.answers()
    asks = [c for c in reading.confirmations if c.field == "cloud"]
    assert len(asks) == 1 and "multi-cloud" in asks[0].question
    assert reading.stated["framework"].value == "pytorch"


def test_clouds_the_message_rules_out_are_not_counted_as_named() -> None:
    # an outside writer's message (fm14): "every cloud" must not count the two it says it is not on
    reading = read_message("not on GCP. not on AWS. azure only. torch. training runs of 5000+ GPUs.")
    assert reading.stated["cloud"].value == "other_single_cloud"
    assert not [c for c in reading.confirmations if c.field == "cloud"]
    # ... while three clouds the team is on are never read as one of them
    named = read_message("we're on AWS, GCP and Azure, pytorch")
    if "cloud" in named.stated:
        assert named.stated["cloud"].value == "multi_cloud"
    else:
        assert [c for c in named.confirmations if c.field == "cloud"]


def test_two_providers_of_one_kind_are_asked_about_never_read_as_one_cloud() -> None:
    # outside writers (fm17, fm28): "AWS and Oracle" both read as "another single cloud", one cloud
    for text in ("We run ~2,500 GPUs split across AWS and Oracle for pretraining, pytorch.",
                 "we fine-tune on RunPod because it's cheap and serve on Azure where the customer is"):
        reading = read_message(text)
        assert reading.answers().get("cloud") in (None, "multi_cloud"), text
        if "cloud" not in reading.answers():
            assert [c for c in reading.confirmations if c.field == "cloud" and "multi-cloud" in c.question], text
    # one provider by two of its names is one cloud
    for text in ("we're on GCP (Google Cloud), pytorch", "Oracle Cloud (OCI) bare metal, 64 GPUs"):
        assert not [c for c in read_message(text).confirmations if c.field == "cloud" and "multi-cloud" in c.question], text


@pytest.mark.parametrize("text,expected", [
    ("no, we're on Azure", True), ("Actually we use JAX", True), ("correction: 64 GPUs", True),
    ("we're on Azure", False), ("Is JAX faster?", False), ("nobody here writes CUDA", False),
])
def test_corrections_are_recognized_by_their_opening(text: str, expected: bool) -> None:
    assert is_correction(text) is expected


@pytest.mark.parametrize("text,expected", [
    ("We're multi-cloud... actually no, scratch that, it's all GCP now", True),
    ("we train on AWS, sorry, I mean Azure", True), ("we're on AWS, or rather Azure since May", True),
    ("I mean, we're on AWS and GCP", False), ("we train on AWS and serve on GCP", False),
])
def test_a_message_taking_back_what_it_named_is_recognized(text: str, expected: bool) -> None:
    assert corrects_itself(text) is expected


@pytest.mark.parametrize(
    ("old", "new", "named"),
    [
        ("[clouds]", "[clouds]\nextra = 1", "clouds.extra: unknown field"),
        ("lead = '''^", "lead = '''(^", "corrections.lead: pattern"),  # an unclosed group
    ],
)
def test_a_broken_checks_file_is_one_rule_error_line(tmp_path, old: str, new: str, named: str) -> None:  # type: ignore[no-untyped-def]
    from common.errors import RuleError
    from knowledge.recommend.message_checks import CHECKS_FILE, load_checks

    bad = tmp_path / "message_checks.toml"
    bad.write_text(CHECKS_FILE.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")
    with pytest.raises(RuleError) as err:
        load_checks(bad)
    line = str(err.value)
    assert line.startswith("message_checks.toml: ") and named in line and "\n" not in line


@pytest.mark.parametrize(("text", "denied"), [
    ("Nobody in lab know XLA.", "team_expertise"),
    ("Nobody in group has used JAX before.", "framework"),
    ("We don't have any people who know CUDA or XLA deeply.", "team_expertise"),
    ("none of us has ever shipped anything on Azure", "cloud"),
])
def test_a_negative_subject_denies_what_the_rest_of_its_clause_names(text: str, denied: str) -> None:
    from knowledge.recommend.textual import profile_from_text

    assert denied not in profile_from_text(text).fields


@pytest.mark.parametrize(("text", "field", "value"), [
    # the subject's clause ends at the comma, or at an emoji, as chat punctuates
    ("nobody here uses TensorFlow anymore, it's all JAX now", "framework", "jax"),
    ("no clue if the loader keeps up, nobody's ever profiled it 🤷 flax on a v5e-16", "framework", "jax"),
    # a team's states are often said through a negative subject, and stay read
    ("Realistically nobody can spend more than a day or two on any migration.", "optimization_time", "days"),
    ("We don't have any budget for TPUs so we stay on AWS", "cloud", "other_single_cloud"),
])
def test_a_negative_subject_leaves_other_clauses_and_states_read(text: str, field: str, value: str) -> None:
    from knowledge.recommend.textual import profile_from_text

    got = profile_from_text(text).fields.get(field)
    assert got is not None and got.value == value, text


@pytest.mark.parametrize(("text", "field", "value"), [
    # a statement before a tail that opens with "maybe" is read, as before ", is tpu worth it?"
    ("jpeg decoding on cpu cant keep 8 gpus fed. its pytorch, maybe DALI would help?", "framework", "pytorch"),
    # a framework only proposed ("a JAX rewrite has been floated") does not contest the one in use
    ("Codebase is PyTorch today; a JAX rewrite has been floated but nothing's decided.", "framework", "pytorch"),
    # a career is the team's own, not someone else's situation
    ("Most of the engineers are ex-DeepMind and know XLA inside out.", "team_expertise", "xla"),
    # a value the writer takes back and replaces ("er", "I mean", "sorry") is dropped, not contested
    ("we are on GCP, er, I mean Azure", "cloud", "other_single_cloud"),
    ("pytorch, I mean jax", "framework", "jax"),
    ("We're on Azure, well, mostly GCP now.", "cloud", "google_cloud"),
    # a clause ending in a bare "no" / "not at all" denies its value
    ("Our people know XLA sharding well and CUDA not at all.", "team_expertise", "xla"),
    ("expertise: jax/xla yes, cuda no", "team_expertise", "xla"),
    # a pasted form with arrows is a form like one with colons
    ("custom ops -> none", "custom_kernels", "none"),
    # the loser of a preference is not the answer
    ("I'd rather keep options open than lock into something cheap but rigid.", "priority", "flexibility"),
    ("instead of GCP we use AWS", "cloud", "other_single_cloud"),
    # workstation and edge devices are devices
    ("a prototype that runs inference on a single RTX 6000 Ada", "scale", "single_device"),
    ("Compute is one A6000 per student.", "scale", "single_device"),
    # a skill said as the team's strength
    ("My team's strongest skill is CUDA, we have two ex-NVIDIA folks.", "team_expertise", "cuda"),
    ("XLA stuff is familiar, CUDA not at all", "team_expertise", "xla"),
    # a form's lines with dashes, and short answers
    ("stage - stabilizing, release candidate next month\nkernels - stock ops only", "custom_kernels", "none"),
    ("arch churn: rare", "architecture_changes", "rarely"),
    ("model churn: constant", "architecture_changes", "often"),
    # a form line that ends in prose does not swallow the next line's label
    ("- We never write custom kernels\n- Team: XLA yes, CUDA also yes", "team_expertise", "both"),
    # a value on its way out, an input pipeline of another framework, kernels the team cannot lose
    ("Framework: mostly PyTorch, a few old Keras models we're retiring", "framework", "pytorch"),
    ("Pretraining is written in JAX with pjit; the input pipeline is tf.data from GCS.", "framework", "jax"),
    ("our custom triton kernals are like 30% of the speedup, cant lose em", "custom_kernels", "critical"),
    ("We own a rack of H100 servers in our colo.", "scale", "multi_device"),
    # cadences said the other way round, or misspelt
    ("we change the architecture most weeks", "architecture_changes", "often"),
    ("arch changes evry couple days lol", "architecture_changes", "often"),
    ("model is a tabular gbdt+dnn thing that barely chnages", "architecture_changes", "rarely"),
    ("Almost never we change the architecture, maybe one time per year.", "architecture_changes", "rarely"),
    # a form's "usage" line is the workload's answer, whatever the model line says it was made by
    ("stage: prod\nmodel: wav2vec2 finetune for keyword spotting\nusage: inference only", "workload", "inference"),
    ("dataloader starves both gpus constantly", "data_pipeline", "cannot_keep_up"),
    ("dataloader starves both gpus constantly", "scale", "multi_device"),
    ("loader never starves them.", "data_pipeline", "keeps_up"),
])
def test_the_value_meant_is_read_past_proposals_corrections_and_forms(text: str, field: str, value: str) -> None:
    from knowledge.recommend.textual import profile_from_text

    got = profile_from_text(text)
    assert got.fields.get(field) is not None and got.fields[field].value == value, text
    assert not any(c.field == field for c in got.confirmations), text


@pytest.mark.parametrize(("text", "field"), [
    ("Realistically the team could spend a couple of days getting familiar with XLA, not more.", "team_expertise"),
    ("a couple of us have also shipped JAX on TPU at previous jobs", "framework"),
    ("our best engineers are the product, cant lose them", "custom_kernels"),
])
def test_learning_a_skill_a_past_job_or_people_set_nothing(text: str, field: str) -> None:
    from knowledge.recommend.textual import profile_from_text

    assert field not in profile_from_text(text).fields, text


def test_a_no_that_opens_the_next_words_is_not_a_trailing_denial() -> None:
    from knowledge.recommend.textual import profile_from_text

    got = profile_from_text("pytorch, no custom kernels")
    assert got.fields["framework"].value == "pytorch" and got.fields["custom_kernels"].value == "none"


@pytest.mark.parametrize(("old", "new", "named"), [
    ('correction_after = "', 'correction_after = "(', "correction_after"),
    ('negative_subject_fields = ["framework"', 'negative_subject_fields = ["frameworks"', "frameworks"),
    ('negative_subject = "', 'negative_subject = "(', "negative_subject"),
    ('value = "multi_cloud"\nwithin = ["google_cloud"', 'value = "multi_cloud"\nwithin = ["gcp"', "includes cloud=multi_cloud"),
])
def test_a_broken_context_cue_is_one_rule_error_line(tmp_path, old: str, new: str, named: str) -> None:  # type: ignore[no-untyped-def]
    from common.errors import RuleError
    from knowledge.recommend.textual import VOCABULARY_FILE, load_vocabulary

    text = VOCABULARY_FILE.read_text(encoding="utf-8")
    assert old in text
    broken = tmp_path / "vocabulary.toml"
    broken.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(RuleError) as err:
        load_vocabulary(broken)
    message = str(err.value)
    assert "\n" not in message and message.startswith("vocabulary.toml: ") and named in message


def test_what_was_never_measured_is_its_own_answer_never_the_fact() -> None:
    """"Never measured whether the loader keeps up" is not "keeps up": it was asked as that until the
    data-pipeline question's "we do not know" became an answer of its own (profile.SAID_UNKNOWN);
    the rules now read it so. "Not sure (if) our loader keeps up" is the same answer: outside writers
    labelled it "unknown" in 35 messages of fm10-fm66, never a value. On any other field a plain hedge is
    still asked ("not sure we're on GCP for good")."""
    from knowledge.recommend.textual import profile_from_text

    got = profile_from_text("havent profiled wether the loader keeps up tbh")
    assert got.fields["data_pipeline"].value == "unknown" and not got.confirmations
    assert got.fields["data_pipeline"].evidence.startswith("havent profiled")
    for text in ("not sure if we're compute bound or input bound tbh", "not sure our loader keeps up tbh"):
        assert profile_from_text(text).fields["data_pipeline"].value == "unknown", text
    hedged = profile_from_text("not sure we're on GCP for good")
    assert "cloud" not in hedged.fields and [(c.field, c.value) for c in hedged.confirmations] == [("cloud", "google_cloud")]


def test_words_that_only_look_like_a_field_are_read_for_what_they_mean() -> None:
    """"Every so often" is now and then, not often (four outside messages said it, each labelled
    "sometimes"); "well, technically just azure" takes back the multi-cloud before it; statistical
    inference is a discipline, not serving a model."""
    from knowledge.recommend.textual import profile_from_text

    assert profile_from_text("we tweak the arch every so often").fields["architecture_changes"].value == "sometimes"
    assert profile_from_text("we change the model often").fields["architecture_changes"].value == "often"
    got = profile_from_text("we're multi-cloud — well, technically just azure, the aws account is only for billing")
    assert got.fields["cloud"].value == "other_single_cloud"
    got = profile_from_text("Our team specialises in statistical inference for credit risk; all we do is model training.")
    assert got.fields["workload"].value == "training"


def test_the_twenty_fourth_sittings_wordings_read_as_their_writers_meant() -> None:
    """fm70-fm72 (three new writers): a duration for a purpose is a time budget, a choice not made
    is a hedge, kernels the model is too slow without are critical, 'set in stone' is rare change,
    'no people who know CUDA or XLA' is neither (a denial of XLA and JAX alone is not), a research
    phase completed is no longer exploration, and serving owned by another group is not ours."""
    from knowledge.recommend.textual import profile_from_text

    def read(text: str) -> dict[str, str]:
        return {f: e.value for f, e in profile_from_text(text).fields.items()}

    assert read("We've got weeks to tune things.").get("optimization_time") == "weeks"
    assert "framework" not in read("framework: not decided yet, leaning JAX")
    assert read("many custom fused kernels, without them the training is too slow").get("custom_kernels") == "critical"
    assert read("the model is pretty much set in stone at this point").get("architecture_changes") == "rarely"
    assert read("We have no people who know CUDA or XLA.").get("team_expertise") == "neither"
    assert read("none of us has touched XLA or jax").get("team_expertise") != "neither"
    assert read("The model has completed its research phase and is now being hardened for launch.").get("stage") == "stabilizing"
    assert read("This team is responsible only for training; serving is owned by a separate group.").get("workload") == "training"
    # fm73 (measured once, then read): the same families said another way
    assert read("Architectural modifications are not anticipated.").get("architecture_changes") == "rarely"
    assert read("Custom routing kernels written in Pallas are essential to throughput.").get("custom_kernels") == "critical"
    assert read("Budget for learning new toolchains = zero.").get("optimization_time") == "none"
    assert read("Cost considerations are secondary to iteration speed.").get("priority") == "flexibility"
    assert read("The model is already in service.").get("stage") == "production"
    # fm74 (measured once, then read by the writer's labels and an engineer)
    assert read("the object store cannot sustain the required read throughput").get("data_pipeline") == "cannot_keep_up"
    assert read("Input pipelines have not been benchmarked.").get("data_pipeline") == "unknown"
    assert read("We don't really touch the model anymore.").get("architecture_changes") == "rarely"
    assert read("launch is soon, so now we stop big experiments and only fixing").get("stage") != "exploration"
    assert read("we can't stop changing the model every week").get("architecture_changes") == "often"

"""What a team says in its own words, read by the real vocabulary (issue 20's weak spots).

Every message here is new wording, written for these tests (none is a tuning message): a
labelled form, time said as a duration next to the work it is for, skills that are not a
framework, judgement fields said through what happens, and the words that keep a field
from being set (another team's training, the past, a plan, "not married to").
"""

from __future__ import annotations

import pytest

from knowledge.recommend import profile_from_text
from tests.harness.readings import answers, reads_as


def test_a_pasted_form_is_read_line_by_line_as_intake_answers() -> None:
    form = "- phase: R&D\n- model churn: most weeks\n- tuning budget: nil\n- people: a couple of XLA engineers, one CUDA person"
    got = answers(form)
    assert got["stage"] == "exploration" and got["architecture_changes"] == "often"
    assert got["team_expertise"] == "both"
    assert "framework" not in got  # the people line names skills, not what the code runs on
    form2 = "Platform: Azure\nkernels: none at all\narch = settled since spring"
    assert answers(form2) == {"cloud": "other_single_cloud", "custom_kernels": "none", "architecture_changes": "rarely"}


def test_a_list_of_short_questions_each_answered_on_its_line_is_a_form_too() -> None:
    form = "- where do you run? only our own racks\n- kernels? two Triton kernels, optional\n- how often does the net change? rarely"
    assert answers(form) == {"cloud": "on_prem", "custom_kernels": "some", "architecture_changes": "rarely"}
    assert answers("one fused attention kernel in CUDA; without it, training is roughly three times slower")["custom_kernels"] == "critical"
    assert answers("Data comes from NFS and it is fast enough, the GPU is always busy.")["data_pipeline"] == "keeps_up"
    # "one GPU server" counts servers; the cards in it say the scale ("1 box, 1 gpu" is one device)
    assert answers("We have one GPU server in the lab with 2 cards inside.")["scale"] == "multi_device"
    assert answers("hardware: 1 box, 1 gpu")["scale"] == "single_device"
    # a question in prose is not a label ("is it worth it? we think so" answers nothing)
    assert answers("is the TPU move worth it? we think so, GPUs cost a lot") == {}


def test_values_that_include_others_are_one_answer_not_a_conflict() -> None:
    got = profile_from_text("We run on AWS and GCP, and a couple of custom CUDA kernels are essential, the model cannot run without them.")
    assert got.answers() == {"cloud": "multi_cloud", "custom_kernels": "critical"} and not got.confirmations


def test_someone_elses_past_or_work_is_not_the_teams() -> None:
    text = "my old lab was all TensorFlow, never again: here we're PyTorch, and we serve models other people trained"
    assert answers(text) == {"framework": "pytorch", "workload": "inference"}
    assert "framework" not in answers("Our backend is Java with JAX-RS.")
    assert answers("the platform folks use JAX, but our group trains in PyTorch") == {"framework": "pytorch", "workload": "training"}
    assert answers("Although our parent company pursues a multi-cloud strategy, we run only on AWS.") == {"cloud": "other_single_cloud"}
    assert "workload" not in answers("Inference is handled by a separate team.")
    assert answers("the platform team upstairs runs everything on jax + tpus, we're pytorch on our own boxes")["framework"] == "pytorch"
    assert answers("we only do training, inference is the product team's problem").get("workload") == "training"
    assert answers("nothing's in production yet and won't be for a while").get("stage") != "production"
    assert answers("tensorflow. no wait, we ported to jax last month") == {"framework": "jax"}
    assert answers("cloud: aws\n(correction: we left aws in march, everything is in our colo now)") == {"cloud": "on_prem"}
    assert answers("Our email is on Google Workspace. All training runs on our on-premises GPU cluster.")["cloud"] == "on_prem"
    assert answers("we only serve; the training was done by another team").get("workload") != "both"
    # a plan is not the stage: "cleared to go to prod next month"
    assert answers("We're cleared to go to production next month.").get("stage") != "production"


def test_a_label_the_vocabulary_does_not_know_reads_nothing_extra() -> None:
    assert answers("favourite colour: blue\nlunch: tacos") == {}


@pytest.mark.parametrize(("text", "value"), [
    ("Management approved a three-week spike to try porting our trainer to XLA.", "weeks"),
    ("We can free up a couple of days to experiment with compiler tuning, no more.", "days"),
    ("Nobody has spare cycles for porting anything this half.", "none"),
    ("Our backlog is slammed through the summer.", "none"),
    ("Mostly an XLA crowd, and there are months to invest in this.", "weeks"),
])
def test_engineering_time_is_a_duration_next_to_the_work_it_is_for(text: str, value: str) -> None:
    assert answers(text).get("optimization_time") == value


def test_a_duration_of_something_else_is_no_engineering_time() -> None:
    assert "optimization_time" not in answers("Each pretraining run lasts about three weeks on our cluster.")
    # fine-tuning a model is not tuning the compiler stack (fq10's reader: read as "weeks to spend")
    assert "optimization_time" not in answers("A couple of times a month we fine-tune an open 7B model on a few GPUs.")
    assert answers("We can give it a couple of weeks of tuning for XLA.").get("optimization_time") == "weeks"


@pytest.mark.parametrize(("text", "team"), [
    ("Our engineers are fluent in JAX and XLA.", "xla"),
    ("A few of us are comfortable with CUDA.", "cuda"),
    ("The group is experienced with both CUDA and JAX.", "both"),
    ("No one on staff has touched CUDA or XLA.", "neither"),
])
def test_a_skill_is_expertise_and_never_the_framework(text: str, team: str) -> None:
    got = answers(text)
    assert got.get("team_expertise") == team
    assert "framework" not in got


@pytest.mark.parametrize(("text", "field", "value"), [
    ("Our tokenizer workers cannot keep pace with the accelerators.", "data_pipeline", "cannot_keep_up"),
    ("The shard reader runs well ahead of the GPUs.", "data_pipeline", "keeps_up"),
    ("Structural changes to the net happen on a daily basis.", "architecture_changes", "often"),
    ("Layout changes to the architecture are now rare.", "architecture_changes", "rarely"),
    ("The network was frozen in January; we only retrain the last layer.", "architecture_changes", "rarely"),
    ("The recommender has been live since 2020.", "stage", "production"),
    ("prod model, retrained every night on the same cluster", "stage", "production"),
    ("still pre-prod, the evals decide next month", "stage", "stabilizing"),
    ("We're hardening everything before the initial release.", "stage", "stabilizing"),
    ("Iteration speed >> cost for us.", "priority", "flexibility"),
    ("We sit somewhere in the middle on cost versus agility.", "priority", "balanced"),
    ("Our fused CUDA ops have stock implementations as well, just slower.", "custom_kernels", "some"),
    ("The custom CUDA ops are non-negotiable, the model diverges without them.", "custom_kernels", "critical"),
    ("We only use stock layers.", "custom_kernels", "none"),
    ("Our runs use roughly three thousand GPUs.", "scale", "massive"),
    ("Reducing our serving costs is what leadership asks about.", "priority", "cost_at_scale"),
    ("We ship two custom TensorRT plugins.", "custom_kernels", "some"),
    # the team says it does not know: data_pipeline's own answer, not a question about "keeps up"
    ("We haven't measured whether storage can keep the accelerators fed.", "data_pipeline", "unknown"),
    ("honestly nobody has checked if the loader keeps up", "data_pipeline", "unknown"),
    ("Input pipeline: never measured\nFramework: JAX", "data_pipeline", "unknown"),
    ("input pipeline: profiled it, nowhere near the bottleneck", "data_pipeline", "keeps_up"),
    ("We would prefer a solution that balances cost and flexibility.", "priority", "balanced"),
    ("Training is not our job, we only serve the model.", "workload", "inference"),
])
def test_judgement_fields_said_through_what_happens(text: str, field: str, value: str) -> None:
    assert answers(text).get(field) == value


@pytest.mark.parametrize(("text", "absent", "kept"), [
    ("We serve the model; it is trained upstream by the research group.", "", {"workload": "inference"}),
    ("We used Keras until 2021. These days it is all JAX.", "", {"framework": "jax"}),
    ("We're not married to any cloud.", "cloud", {}),
    ("We could potentially be multi-cloud next year.", "cloud", {}),
    ("We serve a fine-tuned Mistral to our users.", "", {"workload": "inference"}),
    ("Our stack is plain HF transformers.", "framework", {}),
    ("A colleague's lab rents TPU pods. Our own work is on one laptop GPU.", "", {"scale": "single_device"}),
    ("IT wants to move all of us onto Azure someday; today we run on our own racks.", "", {"cloud": "on_prem"}),
    ("we dont run tensorflow", "framework", {}),
    ("It is written in house, not torch/tf/jax.", "framework", {}),
    ("our infra people disagree: some want XLA, some want Triton", "team_expertise", {}),  # prose with a colon, not a form
    ("We don't have anyone who knows XLA.", "team_expertise", {}),
    ("nothing is in prod yet", "stage", {}),
    # a choice between candidates is not where the team is; work split between two clouds is (fm30)
    ("we are deciding between AWS and GCP", "cloud", {}),
    ("torn between azure and gcp right now", "cloud", {}),
    ("our training is split between AWS and Oracle", "", {"cloud": "other_single_cloud", "workload": "training"}),
])
def test_someone_elses_work_the_past_and_a_plan_set_nothing(text: str, absent: str, kept: dict[str, str]) -> None:
    got = answers(text)
    assert absent not in got
    assert {f: got.get(f) for f in kept} == kept


@pytest.mark.parametrize(("text", "kept", "absent"), [
    # a statement with its subject dropped, then the asking tail: the statement is the team's
    ("training on gke with 8 gpus on one node, is tpu worth a shot?",
     {"cloud": "google_cloud", "workload": "training"}, ()),
    ("pytorch on azure, 16 a100s - any thoughts?", {"framework": "pytorch", "cloud": "other_single_cloud"}, ()),
    # a question from its first word states nothing, whatever it names
    ("is a TPU worth it for a pytorch model on azure?", {}, ("framework", "cloud")),
    ("would JAX on GCP be faster for us, or should we stay put?", {}, ("framework", "cloud")),
])
def test_a_statement_before_a_questions_asking_tail_is_read_the_question_is_not(
    text: str, kept: dict[str, str], absent: tuple[str, ...]
) -> None:
    got = answers(text)
    assert all(got.get(k) == v for k, v in kept.items()), got
    assert not set(absent) & set(got), got


@pytest.mark.parametrize(("text", "scale"), [
    ("For training we have more than 2000 GPU on Google Cloud", "massive"),  # a bound, not a comparison
    ("onprem DGX cluster, ~3000 GPUs, custom attention kernels", "massive"),  # a DGX cluster is no single box
    ("Two teams share a cluster of about 400 GPUs: one trains the models, the other serves them", "massive"),
    ("- gpus: 16", "multi_device"),
])
def test_counts_said_with_bounds_labels_and_clusters(text: str, scale: str) -> None:
    assert answers(text).get("scale") == scale, profile_from_text(text)


def test_the_loser_of_a_comparison_with_than_is_still_not_stated() -> None:
    # "more than" before a count is a bound; before anything else it still marks the comparison's loser
    assert answers("we care about flexibility more than cost").get("priority") == "flexibility"
    assert answers("cost matters more than flexibility to us").get("priority") == "cost_at_scale"


@pytest.mark.parametrize(("text", "expected"), [
    # a side said as the only one: the other side named elsewhere is not joined into "both"
    ("we run inference only; the checkpoint is a mistral finetune", {"workload": "inference"}),
    ("pretraining only for now, on 64 H100s", {"workload": "training", "scale": "multi_device"}),
    # a phase said to be over is not the team's now
    ("pretraining is finished, we now serve the model to customers", {"workload": "inference"}),
    ("we're winding down the research phase", {}),
    # a slip in the word that takes a match back
    ("we're on gcp, sory, azure actually", {"cloud": "other_single_cloud"}),
    # a doubt right after the match: asked, never assumed
    ("the cluster is on Azure, not sure honestly", {}),
    ("hosting will be on AWS, though that is not finalized", {}),
    ("we're on AWS, i think we'll stay there", {"cloud": "other_single_cloud"}),
    # "Cloud TPU" names Google's product, not several clouds
    ("we train on multiple Cloud TPU v4 slices on Google Cloud", {"cloud": "google_cloud", "workload": "training"}),
    ("model revisions are infrequent", {"architecture_changes": "rarely"}),
    # work done outside the team, or outside the scope of the question, is not the team's
    ("we serve live traffic for the app; fine-tuning is carried out externally", {"workload": "inference"}),
    # a plan about the cloud, and the loser of a balance, are not the team's answer
    ("we will probably move to azure next year, for now it's all GKE", {"cloud": "google_cloud"}),
    ("serving to users; we host an API on our own racks", {"workload": "inference", "cloud": "on_prem"}),
])
def test_words_around_a_match_that_narrow_doubt_or_end_it(text: str, expected: dict[str, str]) -> None:
    reads_as(text, expected, ("workload", "cloud", "stage", "architecture_changes", "scale"))


def test_a_concern_line_answers_the_priority_question() -> None:
    assert answers("- biggest concern: keeping the cloud bill down")["priority"] == "cost_at_scale"
    assert answers("priority: our spend")["priority"] == "cost_at_scale"


def test_a_priority_said_to_be_secondary_or_balanced_is_not_the_priority() -> None:
    assert answers("Cost is of minor importance to us; flexibility is what we need.")["priority"] == "flexibility"
    assert answers("we want a balance between low cost and the freedom to change models")["priority"] == "balanced"


@pytest.mark.parametrize(("text", "expected"), [
    # a way out named beside the kernels makes them a few replaceable ones (fm79-27, fm79-44)
    ("A few of our layers rely on custom CUDA code, though there are slower standard equivalents we could switch to.",
     {"custom_kernels": "some"}),
    ("we have a coupel custom cuda ops but could live without them", {"custom_kernels": "some"}),
    ("We have some custom ops for audio feature extraction, but they're not central.", {"custom_kernels": "some"}),
    ("we have custom kernels but they are not critical to the model", {"custom_kernels": "some"}),
    ("our model relies heavily on custom CUDA kernels", {"custom_kernels": "critical"}),
    # the kernel the model exists for (fm79-14)
    ("Kernels: a Triton kernel for our sparse attention, which is the whole point of the model", {"custom_kernels": "critical"}),
    # a frequency denied is not the one said (fm79-46)
    ("The model architecture we change sometimes, not often, not rare.", {"architecture_changes": "sometimes"}),
    ("The model is mature and live; changes to its structure are rare.", {"stage": "production", "architecture_changes": "rarely"}),
    # predictions made and models hosted for others are serving (fm79-18, fm79-21)
    ("We make only prediction for clients, no training.", {"workload": "inference"}),
    ("Doing: fine-tuning LLMs and hosting them for users", {"workload": "both"}),
    # a way out beside the kernels outweighs how they are written (fm81-21); "does not run without them"
    # is dependence, "nothing works without them" too (fm25-32, fm81-27)
    ("kernels: a few hand-written CUDA ops, nice to have but not essential", {"custom_kernels": "some"}),
    ("Our custom CUDA kernels for temporal attention are essential; the model does not run without them.",
     {"custom_kernels": "critical"}),
    ("we rely on custom CUDA ops for point-cloud processing, and nothing works without them", {"custom_kernels": "critical"}),
    ("lots of custom Triton/CUDA kernels we depend on", {"custom_kernels": "critical"}),
    ("We rely on a small number of custom kernels, although none of them is indispensable.", {"custom_kernels": "some"}),
    ("we arent writing any custon kernals, never have", {"custom_kernels": "none"}),
    ("- Custom ops: we don't write any", {"custom_kernels": "none"}),
    # "deployed" alone is not serving; trained and deployed is both (fm80-05, fm81-26, fm53-32)
    ("The model is mature and deployed in production; architectural revisions are rare.",
     {"stage": "production", "architecture_changes": "rarely"}),
    ("We train and also deploy the models.", {"workload": "both"}),
    ("our model is running for customers since one year already", {"stage": "production"}),
    ("we do reserch, pure trial and error rn", {"stage": "exploration"}),
])
def test_how_much_the_kernels_matter_how_often_things_change_and_whom_the_work_serves(text: str, expected: dict[str, str]) -> None:
    reads_as(text, expected, ("custom_kernels", "architecture_changes", "stage", "workload"))


@pytest.mark.parametrize(("text", "expected"), [
    ("hi, were a startup on GCP, the bill is kilin us as we grow", "cost_at_scale"),  # fm81-23
    ("When we grow, the money is most important thing for us.", "cost_at_scale"),  # fm81-04
    ("what matters: freedom to change > cost", "flexibility"),  # fm81-49
    ("We'd still rather keep the freedom to swap models quickly than squeeze every dollar.", "flexibility"),  # fm81-34
    # a balance said outright holds the sides it names (fm25-28)
    ("We'd like a balanced answer: we care about cost, but not at the expense of being able to swap models.", "balanced"),
])
def test_a_priority_said_through_the_bill_or_a_comparison(text: str, expected: str) -> None:
    assert answers(text).get("priority") == expected, text


@pytest.mark.parametrize(("text", "expected"), [
    ("Our input pipeline is honestly fine, the chips never sit waiting for data.", "keeps_up"),  # fm80-03
    ("Our data is coming from network storage and it is enough fast, GPU always busy.", "keeps_up"),  # fm80-25
    ("the GPUs sit idle waiting for data half the time", "cannot_keep_up"),
])
def test_a_pipeline_said_through_how_busy_the_chips_are(text: str, expected: str) -> None:
    assert answers(text).get("data_pipeline") == expected, text


def test_a_provider_named_alone_under_its_label_is_the_cloud() -> None:
    # fm80-28: "Provider: Oracle" (in prose, "Oracle" alone may be the database)
    assert answers("Phase: R&D, nothing shipped\nProvider: Oracle")["cloud"] == "other_single_cloud"
    assert "cloud" not in answers("we store the labels in an Oracle database")



@pytest.mark.parametrize(("text", "expected"), [
    # read from fm82 after its first measurement
    ("The deployment target is Microsoft Azure.", {"cloud": "other_single_cloud"}),  # Microsoft's cloud is no one else's situation
    ("We're thinking about going multi-cloud next year, but for now it's just us and GCP.", {"cloud": "google_cloud"}),
    ("We have a couple of hand-written CUDA kernels for some preprocessing ops, nice to have but not essential.",
     {"custom_kernels": "some"}),
    ("Quick facts:\n- Hosting: Azure\n- Accelerators: one per job", {"cloud": "other_single_cloud", "scale": "single_device"}),
    ("We need the most cheap way when we grow.", {"priority": "cost_at_scale"}),
    ("we're locking down the design and only make occasional changes.", {"architecture_changes": "sometimes"}),
    # read from fm83 after its first measurement: work another team does is not the team's, and a
    # cost kept sane "but we don't want to lose" flexibility is a balance
    ("Our job is training new versions; another team handles serving.", {}),
    ("we'd like costs to stay sane as traffic climbs, but we don't want to lose the ability to iterate", {"priority": "balanced"}),
    # read from fm84 after its first measurement: the loser of "takes precedence over", and spending
    # reduced is cost
    ("Reducing per-unit expenditure as our volume grows takes precedence over flexibility.", {"priority": "cost_at_scale"}),
])
def test_a_cloud_a_plan_and_a_count_said_in_passing(text: str, expected: dict[str, str]) -> None:
    got = reads_as(text, expected, ("cloud", "custom_kernels", "scale", "priority", "architecture_changes"))
    assert got.get("workload") in (None, "training"), (text, got)


def test_veterans_of_cuda_beside_xla_people_are_both() -> None:
    # fm84-41: "several CUDA veterans" was not read, so the team read as XLA alone
    assert answers("We have a couple of people who know XLA internals very well and several CUDA veterans.")["team_expertise"] == "both"
    # people "who came from Google" are the team's own, and their past employer is no move of the team's
    got = answers("The team is a mix of CUDA veterans and a couple of people who came from Google and know XLA.")
    assert got["team_expertise"] == "both", got
    got = answers("The team has people who've written Triton and CUDA kernels and people who came from Google and know XLA inside out.")
    assert got["team_expertise"] == "both", got

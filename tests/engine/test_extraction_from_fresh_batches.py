"""Phrasings the rules read as the writers of fresh batches meant, each written after the batch's first
measurement and reading (the twenty-seventh sitting: fm66-fm89).

The messages are written for these tests, in the shape of what the batches held; each table names
the fields it holds the reading to (``expected`` there and nothing else), as the round that added it
did.
"""

from __future__ import annotations

import pytest

from tests.harness.readings import answers, reads_as


def _table(fields: tuple[str, ...], *cases: tuple[str, dict[str, str]]) -> list[tuple[str, dict[str, str], tuple[str, ...]]]:
    return [(text, expected, fields) for text, expected in cases]


READINGS = [
    # from fm66-fm84: a batch size and a version are numbers of no devices, thousands are grouped by
    # commas ("512, one A100" had read as 512 devices), one GPU named with a word between it and its
    # box is one device; the past reaches through "all-in on", and an expected future is a plan
    *_table(
        ("scale", "framework", "architecture_changes"),
        ("3 MLEs, batch size 512, one A100 80GB. plain torch.", {"scale": "single_device", "framework": "pytorch"}),
        ("we use 4,096 TPU chips for pretraining", {"scale": "massive"}),
        ("jax shop. single GPU dev box. exploring ideas.", {"scale": "single_device", "framework": "jax"}),
        ("we used to be all-in on TensorFlow, and now we're still deciding what to use next", {}),
        ("This team develops in PyTorch. We anticipate scaling to thousands of accelerators in due course.", {"framework": "pytorch"}),
        ("we expect to revise the architecture frequently over the next six months", {"architecture_changes": "often"}),
    ),
    # from fm66-fm84: the phase said as a way of working, the priority as staying nimble or as the
    # bill, CUDA expertise through the team's weight in it
    *_table(
        ("stage", "priority", "team_expertise"),
        ("we're still in the early try-everything phase, the model gets rebuilt constantly", {"stage": "exploration"}),
        ("the dialogue crew is still very much in play-around mode", {"stage": "exploration"}),
        ("past the 'throw stuff at the wall' phase, now trying to stabilise things", {"stage": "stabilizing"}),
        ("zero appetite for compiler tinkering", {}),
        ("Stage: launched to users last month", {"stage": "production"}),
        ("The model has been deployed for eighteen months and its architecture is frozen.", {"stage": "production"}),
        ("we'd much rather stay nimble than save a few bucks", {"priority": "flexibility"}),
        ("budget is what matters most once we scale.", {"priority": "cost_at_scale"}),
        ("all we care about is $/image at volume", {"priority": "cost_at_scale"}),
        ("team is cuda heavy, xla never tried", {"team_expertise": "cuda"}),
        ("Engineers: CUDA yes, XLA no", {"team_expertise": "cuda"}),
    ),
    # from fm85
    *_table(
        ("priority", "stage", "custom_kernels", "data_pipeline"),
        ("- framework: PyTorch\n- what matters: keeping the bill low once we scale up", {"priority": "cost_at_scale"}),
        ("being able to try weird ideas matters way more to us than shaving dollars off the bill", {"priority": "flexibility"}),
        ("We would value flexibility above cost efficiency.", {"priority": "flexibility"}),
        ("- Where we are: early research\n- Model changes: daily", {"stage": "exploration"}),
        ("- where we are: early, trying things out", {"stage": "exploration"}),
        ("no cuda kernals, no xla experiance either, were just app devs", {"custom_kernels": "none"}),
        ("I/O: benchmarked, the GPUs never starve", {"data_pipeline": "keeps_up"}),
        ("We're super early, trying a new backbone every other day.", {"stage": "exploration"}),
    ),
    # from fm87: a bound, a count beside "cheap at scale", a cloud under consideration
    *_table(
        ("scale", "optimization_time", "team_expertise", "custom_kernels", "cloud"),
        ("PyTorch, training only, 8 GPUs on AWS. Need it cheap at scale.", {"scale": "multi_device", "cloud": "other_single_cloud"}),
        ("we cant spend more then a day or two on tuning stuff", {"optimization_time": "days"}),
        ("Team: 2 people, no CUDA or XLA experience between us", {"team_expertise": "neither"}),
        ("Here in new company we use PyTorch on AWS, and team know nor CUDA nor XLA.", {"team_expertise": "neither", "cloud": "other_single_cloud"}),
        ("Some ops we need are not standard, we write own CUDA kernel and without it nothing work.", {"custom_kernels": "critical"}),
        ("We have not yet selected a cloud provider, although Google Cloud is under consideration.", {}),
    ),
    # from fm87's reading: slips and a non-native word order
    *_table(
        ("stage", "architecture_changes", "data_pipeline"),
        ("we're stil in early resarch, changing the model archtecture almost every week.", {"stage": "exploration", "architecture_changes": "often"}),
        ("data pipline is definately fast enough, we profiled it", {"data_pipeline": "keeps_up"}),
        ("Architecture we change only very rare now.", {"architecture_changes": "rarely"}),
        ("we read early research papers on TPUs", {}),
    ),
    # from fm88: a numbered list is a form too; a rewrite proposed; adaptability
    *_table(
        ("cloud", "stage", "optimization_time", "workload", "framework", "priority", "custom_kernels"),
        ("About us:\n1) Hosting: Google Kubernetes Engine\n2) Model status: it's live and in front of users",
         {"cloud": "google_cloud", "stage": "production"}),
        ("We are in production already. Cloud is Oracle.", {"cloud": "other_single_cloud", "stage": "production"}),
        ("We anticipate allocating several weeks to performance engineering.", {"optimization_time": "weeks"}),
        ("Our system serves predictions only; training is performed by a partner organisation.", {"workload": "inference"}),
        ("my cofounder keeps saying we should rewrite everything in JAX, but for now we're firmly a PyTorch shop", {"framework": "pytorch"}),
        ("Since then we've rewritten everything in PyTorch and moved to Lambda", {"framework": "pytorch"}),
        ("JAX. Exploring. Adaptability first.", {"priority": "flexibility", "framework": "jax", "stage": "exploration"}),
        ("We seek a compromise between adaptability for research and economy of operation.", {}),
        ("wrote a bunch of fused kernels the model cant run without", {"custom_kernels": "critical"}),
    ),
]


@pytest.mark.parametrize(("text", "expected", "fields"), READINGS)
def test_a_phrasing_reads_as_its_writer_meant(text: str, expected: dict[str, str], fields: tuple[str, ...]) -> None:
    reads_as(text, expected, fields)


@pytest.mark.parametrize("text, expected", [
    # from fm86: a competitor's scale is not the team's, nor is a debated second cloud
    ("We write PyTorch. A competitor apparently trains on thousands of TPUs, but we're nowhere near that.", {"framework": "pytorch"}),
    ("We're on AWS today, and there's an ongoing debate about adding GCP, but nothing is decided.", {"cloud": "other_single_cloud"}),
    ("We're definitely live - customers use it every day!", {"stage": "production"}),
    ("Our pipeline? Rock solid, the GPUs never wait on data.", {"data_pipeline": "keeps_up"}),
    ("Our team is deep into CUDA and has never used XLA.", {"team_expertise": "cuda"}),
    ("our models finally stopped changing much", {"architecture_changes": "rarely"}),
])
def test_someone_elses_scale_a_debated_cloud_and_a_team_deep_into_cuda(text: str, expected: dict[str, str]) -> None:
    got = reads_as(text, expected, ("framework", "cloud", "stage", "data_pipeline", "team_expertise", "architecture_changes"))
    assert "scale" not in got and "workload" not in got, (text, got)


def test_a_clause_with_only_a_version_number_sets_no_scale_whatever_the_heads_read(reader) -> None:  # type: ignore[no-untyped-def]
    from knowledge.recommend.learned.combine import extract_message
    from knowledge.recommend.textual import counts_no_devices

    assert counts_no_devices("it's all TF 1.x still") and counts_no_devices("batch size 512")
    assert not counts_no_devices("we use CUDA 12.1 on 8 GPUs")
    # the heads read "TF 1.x" as one device (0.98) before the clause's numbers were checked
    assert "scale" not in extract_message("we do not use JAX. it's all TF 1.x still, don't judge", reader).fields


def test_money_saved_is_no_priority_when_it_loses_to_speed() -> None:
    # fm19-31: "saving money" read as the priority though it lost to moving fast
    assert answers("they value being able to move fast over saving money").get("priority") != "cost_at_scale"


def test_serving_another_team_makes_is_not_the_teams_work() -> None:
    # fm85-25: "the serving is made by other team" made the team's training "both"
    got = answers("We are doing only the training, the serving is made by other team and it is not our problem.")
    assert got.get("workload") == "training", got
    assert answers("We're super early, trying a new backbone every other day.").get("architecture_changes") == "often"


def test_a_mix_of_the_two_priorities_is_a_balance() -> None:
    # fm89-37, read after its first measurement: "a mix of cost and flexibilty" read as flexibility
    assert answers("prioritiy is a mix of cost and flexibilty").get("priority") == "balanced"
    assert answers("a blend of flexibility and savings").get("priority") == "balanced"

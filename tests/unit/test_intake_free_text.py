"""Free-text answers go through ``profile_from_text``: what it understands is echoed and
recorded, what it finds ambiguous is asked (never guessed), other fields stated in passing
are kept when unambiguous (and never overwrite an answer), and what is not understood at
all gets a short hint. Each case first checks what the real extractor reads, so a change
of vocabulary shows up as a precondition, not as a silent dialog change."""

from __future__ import annotations

import pytest

from bot.intake.dialog import IntakeState, advance, start
from knowledge.recommend import profile_from_text


def at(field: str, answers: dict[str, str]) -> IntakeState:
    return IntakeState(asked=list(answers), current=field, answers=answers)


GCP = {"cloud": "google_cloud"}


def test_an_understood_answer_is_echoed_and_recorded() -> None:
    assert profile_from_text("8 GPUs", field="scale").answers() == {"scale": "multi_device"}
    turn = advance(at("scale", GCP), "8 GPUs")
    assert turn.event == "answered"
    assert turn.state.answers["scale"] == "multi_device" and turn.state.asked == ["cloud", "scale"]
    assert turn.text.startswith("understood: 8 GPUs -> Several accelerators (one or a few nodes)\nQuestion 3 ")


def test_other_fields_stated_in_passing_are_recorded_and_said() -> None:
    assert profile_from_text("AWS, and we use PyTorch").answers() == {"cloud": "other_single_cloud", "framework": "pytorch"}
    turn = advance(start().state, "AWS, and we use PyTorch")
    assert turn.state.answers["cloud"] == "other_single_cloud" and turn.state.asked == ["cloud"]
    assert turn.state.volunteered == {"framework": "cloud"} and turn.state.known()["framework"] == "pytorch"
    assert turn.text.splitlines()[:2] == [
        "understood: AWS -> One other cloud (AWS, Azure, ...)",
        'also noted: framework = PyTorch ("PyTorch")',
    ]
    # framework is never asked: answer everything else with "skip" and decline the rest.
    while not turn.finished:
        assert turn.state.current != "framework"
        turn = advance(turn.state, "no" if turn.state.offered else "skip")
    assert "framework: PyTorch (from your answer about cloud)" in turn.text
    assert turn.state.profile().framework == "pytorch"


def test_a_stated_field_never_overwrites_an_answer() -> None:
    assert profile_from_text("8 GPUs on AWS").answers() == {"cloud": "other_single_cloud", "scale": "multi_device"}
    turn = advance(at("scale", GCP), "8 GPUs on AWS")
    assert turn.state.answers["cloud"] == "google_cloud" and turn.state.volunteered == {}
    assert "also noted" not in turn.text


def test_an_ambiguous_answer_is_confirmed_not_guessed() -> None:
    reading = profile_from_text("we have custom CUDA kernels", field="custom_kernels")
    assert reading.fields == {} and [c.value for c in reading.confirmations] == ["critical"]
    asked = advance(at("custom_kernels", GCP), "we have custom CUDA kernels")
    assert asked.event == "confirm" and "custom_kernels" not in asked.state.answers
    assert asked.text == f'You wrote "custom CUDA kernels". {reading.confirmations[0].question} (yes/no)'
    # It survives JSON while waiting for the reply.
    assert IntakeState.model_validate_json(asked.state.model_dump_json()) == asked.state
    yes = advance(asked.state, "yes")
    assert yes.state.answers["custom_kernels"] == "critical" and yes.state.confirm is None
    assert yes.text.startswith("understood: custom CUDA kernels -> Critical: custom CUDA kernels")
    no = advance(asked.state, "no")
    assert no.state.current == "custom_kernels" and "custom_kernels" not in no.state.answers
    assert no.text.startswith("OK, not that.\nQuestion 2 (at most 11): Does the work rely on custom CUDA kernels")
    # Or the person answers the question itself instead of yes/no.
    direct = advance(asked.state, "2")
    assert direct.state.answers["custom_kernels"] == "some" and direct.state.confirm is None


def test_conflicting_words_become_a_choice() -> None:
    reading = profile_from_text("mostly pytorch but some jax", field="framework")
    assert reading.fields == {} and reading.confirmations
    turn = advance(at("framework", GCP), "mostly pytorch but some jax")
    assert turn.event == "confirm" and turn.state.confirm is not None and not turn.state.confirm.yes_no
    assert turn.text.startswith(reading.confirmations[0].question)
    assert advance(turn.state, "yes").text.startswith("Which one?")
    picked = advance(turn.state, "jax")
    assert picked.state.answers["framework"] == "jax"


def test_a_stated_field_without_the_asked_one_re_asks_briefly() -> None:
    assert profile_from_text("we use JAX", field="custom_kernels").answers() == {}
    turn = advance(at("custom_kernels", {**GCP, "scale": "massive"}), "we use JAX")
    assert turn.event == "noted" and turn.state.current == "custom_kernels"
    assert turn.state.volunteered == {"framework": "custom_kernels"}
    assert turn.text == (
        'also noted: framework = JAX ("JAX")\n'
        "And this question: Does the work rely on custom CUDA kernels or non-standard operations? "
        "1 None, 2 Some, 3 Critical; 'skip' if not sure, 'help' for more."
    )


def test_back_drops_what_the_undone_answer_stated() -> None:
    turn = advance(start().state, "AWS, and we use PyTorch")
    back = advance(turn.state, "back")
    assert back.state.current == "cloud" and back.state.volunteered == {} and back.state.asked == []
    assert "framework" not in back.state.known()


def test_nothing_understood_gets_a_short_hint() -> None:
    assert profile_from_text("banana bread").answers() == {}
    turn = advance(at("scale", GCP), "banana bread")
    assert turn.event == "invalid" and turn.state.misses == 1
    assert turn.text == (
        "Sorry, I did not understand 'banana bread'.\n"
        "How big are the jobs? 1 A single accelerator, 2 Several accelerators, 3 Massive; "
        "'skip' if not sure, 'help' for more."
    )


def test_a_stated_field_that_settles_the_verdict_ends_the_questions() -> None:
    assert profile_from_text("our models are in MXNet").answers() == {"framework": "other"}
    turn = advance(at("scale", GCP), "our models are in MXNet")
    assert turn.event == "offer" and turn.state.volunteered == {"framework": "scale"}
    assert "scale" not in turn.state.asked  # the question became moot, so it was not pressed
    assert turn.text == (
        'also noted: framework = Something else ("MXNet")\n'
        "Your answers already settle it: GPU. 9 questions skipped; answer them anyway? (yes/no)"
    )


@pytest.mark.parametrize(("text", "scale"), [
    ("we train on a couple thousand H100s", "massive"),
    ("a couple of hundred A100s", "massive"),
    ("3 thousand cards", "massive"),
    ("a thousand GPUs", "massive"),
    ("a couple of GPUs", "multi_device"),  # "couple" alone stays a small count
    ("the two of us share 4 GPUs", "multi_device"),
])
def test_a_count_said_with_a_multiplier_is_multiplied(text: str, scale: str) -> None:
    # "a couple thousand H100s" read as two devices was multi_device (fq28-17)
    assert profile_from_text(text).answers().get("scale") == scale



@pytest.mark.parametrize(("text", "scale"), [
    ("64 A100s in our own data center", "multi_device"),
    ("sharded data parallel across 64 GPUs", "multi_device"),
    ("16 servers of A100", "multi_device"),
    ("we run on 128 GPUs", "massive"),
    ("a cluster of 256 chips", "massive"),
    ("64 nodes of H100", "massive"),
])
def test_massive_starts_at_hundreds_of_chips(text: str, scale: str) -> None:
    # every labelled message and clause with 64 devices (26, outside writers and ours) calls it
    # multi-device; the threshold of 64 read them all as massive (fm32-36, fm33-20, fm33-35)
    assert profile_from_text(text).answers().get("scale") == scale


@pytest.mark.parametrize(("text", "scale"), [
    ("traning on 64 nodes of 8 gpus at coreweave", "massive"),  # fm39-36: 512 GPUs
    ("we use 40 nodes with 8 gpus each", "massive"),
    ("4 hosts x 8 H100", "multi_device"),
    ("two nodes of 8 V100 each", "multi_device"),
    ("a few nodes, 8 GPUs in total", "multi_device"),
])
def test_a_node_count_with_the_devices_of_each_node_is_their_product(text: str, scale: str) -> None:
    # "64 nodes of 8 GPUs" gave a massive node count and a multi-device GPU count, and asked which
    got = profile_from_text(text)
    assert got.answers().get("scale") == scale and not any(c.field == "scale" for c in got.confirmations), text


@pytest.mark.parametrize(("text", "scale"), [
    ("one gpu box for now", "single_device"),  # fm76-02
    ("hw: one GPU box in our office", "single_device"),  # fm78-35
    ("a single 4090 box under my desk", "single_device"),
    ("one A10G server, serving a small model", "single_device"),
    ("one GPU server in the lab with 2 cards inside", "multi_device"),  # the device count says two
    ("one p4d box doing fine-tuning", "multi_device"),  # a machine of eight GPUs
    ("one big box", "multi_device"),
    ("two GPU servers", "multi_device"),
    ("one TPU host", "multi_device"),  # a TPU host holds four to eight chips
])
def test_one_node_named_by_its_one_gpu_is_a_single_device(text: str, scale: str) -> None:
    # outside writers label "one GPU box", "a single GPU server", "one A10G box" as one device (eight
    # messages, none otherwise); every node count read as multi-device (fm76-02, fm78-35)
    assert profile_from_text(text).answers().get("scale") == scale, text


@pytest.mark.parametrize("text", [
    "cheapest isn't the point, i just want to hack on whatever without friction",
    "we don't care about being the cheapest",
    "dont need the absolute cheapest",
])
def test_a_denied_priority_is_not_the_teams(text: str) -> None:
    # fm34-37, fm35-21: a denial after the match, or before it across "the absolute" / "care about
    # being", read as cost first
    assert "priority" not in profile_from_text(text).answers()


def test_a_priority_said_plainly_still_counts() -> None:
    assert profile_from_text("cost is everything for us").answers()["priority"] == "cost_at_scale"


def test_a_count_of_people_is_the_teams_size_never_its_devices() -> None:
    from knowledge.recommend.textual import counts_no_devices

    assert counts_no_devices("Context: 8 ML engineers") and counts_no_devices("a team of three researchers")
    assert not counts_no_devices("8 engineers share 16 GPUs") and not counts_no_devices("we have 8 GPUs")
    assert "scale" not in profile_from_text("Context: 8 ML engineers, all on GCP").answers()


@pytest.mark.parametrize("text", [
    "We only do training - inference is another team's problem.",  # fm40-40
    "torch on azure, 2 nodes. training only, serving is another team's problem.",  # fm32-16
])
def test_what_another_team_owns_is_not_the_teams_workload(text: str) -> None:
    assert profile_from_text(text).answers().get("workload") == "training"


def test_a_sister_teams_setup_disowned_with_not_us_is_not_the_teams() -> None:
    # fm63-40: "A sister team at the bank is experimenting with JAX on TPUs, but that's not us."
    read = profile_from_text("A sister team at the bank is experimenting with JAX on TPUs, but that's not us. "
                             "We serve one model on a single GPU.")
    assert "framework" not in read.fields and "stage" not in read.fields
    assert read.fields["scale"].value == "single_device"

"""The notes' sentences about a team like the asker's (bot/team_notes.py), as ``hwbot ask`` reads the
team with the learned extractor: the exception that follows the engine's verdict, and the lead that
no verdict line contradicts."""

from __future__ import annotations

import re

from bot.advice import advise


def test_a_note_on_a_team_like_this_one_pointing_the_other_way_follows_the_verdict(qa, reader) -> None:  # type: ignore[no-untyped-def]
    # the engine has no field for static shapes: its verdict for exploratory work is GPU, and the
    # notes' exception for a JAX research team is what answers "can we prototype on TPUs?" (read as
    # `hwbot ask` reads it, with the learned extractor: a "research group" is exploration)
    from knowledge.recommend.learned.combine import extract_message

    question = ("We're a small research group and everything we write is already JAX. Architectures change "
                "pretty much weekly, but we keep batch size and sequence length fixed. Can we prototype on TPUs, "
                "or should research really stay on GPUs?")
    advice = advise(qa, question, extract=lambda text: extract_message(text, reader))
    assert advice.recommendation is not None and advice.recommendation.recommendation == "gpu"
    first = advice.answer.answer.split("\n")[0]
    assert first.startswith("Recommendation: GPU")
    exception = re.search(r" But (a research team that already writes JAX can prototype on TPUs too[^\[]*) \[([a-z0-9_]+:c\d{4})\]$", first)
    assert exception is not None, first
    assert exception.group(2) in {c.chunk_id for c in advice.answer.citations}
    assert any(s.text.startswith("A research team that already writes JAX") for s in advice.answer.sentences)


def test_the_exception_for_a_jax_research_team_is_not_given_to_a_pytorch_one(qa, reader) -> None:  # type: ignore[no-untyped-def]
    from knowledge.recommend.learned.combine import extract_message

    question = ("We're a small research group and everything we write is PyTorch. Architectures change pretty much "
                "weekly. Can we prototype on TPUs, or should research really stay on GPUs?")
    advice = advise(qa, question, extract=lambda text: extract_message(text, reader))
    assert advice.recommendation is not None and advice.recommendation.recommendation == "gpu"
    assert "already writes JAX can prototype" not in advice.answer.answer.split("\n")[0]


def test_a_lead_on_a_team_like_this_one_is_not_closed_by_the_engines_other_verdict(qa, reader) -> None:  # type: ignore[no-untyped-def]
    # fq95-32, judged wrong: "a research team that already writes JAX can prototype on TPUs too, ..."
    # closed by "the engine's verdict ...: GPU" read as a contradiction
    from knowledge.recommend.learned.combine import extract_message

    question = ("Our research group already writes everything in JAX, and we have TPU credits on Google Cloud. We try "
                "a new architecture pretty much every week. Can we prototype on the TPUs, or should we grab GPUs for now?")
    advice = advise(qa, question, extract=lambda text: extract_message(text, reader))
    assert advice.answer.answer.startswith("A research team that already writes JAX can prototype on TPUs"), advice.answer.answer
    assert "verdict" not in advice.answer.answer, advice.answer.answer

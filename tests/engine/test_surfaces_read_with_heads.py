"""The REPL, Slack and ``hwbot ask`` read a team's words with the same extractor as ``recommend --text``.

They share :func:`bot.conversation.converse` / :func:`bot.advice.advise` with an ``extract``
from :func:`bot.extractor.lazy_extractor`; a question that does not describe the team never
opens the learned reader (the cold path stays as fast as before).
"""

from __future__ import annotations

import pytest

from bot.advice import advise
from bot.conversation import converse
from bot.extractor import lazy_extractor, understand
from common.settings import HwbotSettings

#: the rules read nothing here; the learned heads read the team's CUDA expertise
SITUATION = "We write our own CUDA for the sparse ops and profile with nsight daily. Should we move to TPUs?"
GENERAL = "What is a TPU?"


@pytest.fixture
def counted(built_index):
    settings = HwbotSettings(index_dir=built_index)
    inner = lazy_extractor(settings)
    calls: list[str] = []

    def extract(text: str):
        calls.append(text)
        return inner(text)

    return settings, extract, calls


def test_a_general_question_never_opens_the_extractor(qa, counted):
    _, extract, calls = counted
    advice = advise(qa, GENERAL, extract=extract)
    assert advice.profile is None
    _, understood = converse(qa.ask, GENERAL, None, extract)
    assert understood.empty
    assert calls == []


def test_the_conversation_reads_as_recommend_text_does(qa, counted):
    settings, extract, calls = counted
    expected = {f: e.value for f, e in understand(SITUATION, settings).stated.items()}
    rules = {f: e.value for f, e in understand(SITUATION, settings, "rules").stated.items()}
    assert expected.get("team_expertise") == "cuda" and "team_expertise" not in rules
    advice, understood = converse(qa.ask, SITUATION, None, extract)
    assert calls, "the situational message was read with the learned extractor"
    assert {f: v for f, (v, _) in understood.stated.items()} == expected
    assert advice.profile is not None and advice.profile.team_expertise == "cuda"


def test_ask_reads_as_recommend_text_does(qa, counted):
    _, extract, calls = counted
    advice = advise(qa, SITUATION, extract=extract)
    assert calls and advice.profile is not None
    assert advice.profile.team_expertise == "cuda"
    assert advise(qa, SITUATION).profile is None or advise(qa, SITUATION).profile.team_expertise != "cuda"


def test_a_notes_answer_about_a_situation_the_team_ruled_out_is_not_its_reason(qa, counted):
    # fq45-23: a frozen JAX transformer on GCP trained for weeks across many chips got "GPU, since stay
    # on GPUs while the project is still exploratory and the architecture keeps changing"; and "8 ML
    # engineers" was read as eight devices, which made the scale a question
    question = ("Context: 8 ML engineers, one dense transformer in JAX, architecture frozen for months, each training "
                "run lasts about five weeks in bf16 across many chips, and all our data and infra already sit on GCP. "
                "Finance wants to know whether we should drop our GPU reservation and go to TPUs. What does the "
                "guidance say for a team like ours?")
    _, extract, _ = counted
    advice = advise(qa, question, extract=extract)
    assert advice.recommendation is not None and advice.reading is not None
    assert advice.reading.stated["scale"].value == "massive"
    first = advice.answer.answer.split("\n")[0]
    assert "exploratory" not in first and "keeps changing" not in first, first

"""Question hygiene: the same cleaning for every front end."""

from __future__ import annotations

import pytest

from knowledge.qa.hygiene import MAX_QUESTION_CHARS, EmptyQuestionError, clean_question


@pytest.mark.parametrize("raw", ["", "   ", "\x00\x01\x1b[31m\x1b[0m", "\n\t\n"])
def test_empty_questions_get_a_gentle_prompt(raw):
    with pytest.raises(EmptyQuestionError, match="type a question"):
        clean_question(raw)


def test_control_characters_and_escapes_are_stripped():
    text, notices = clean_question("Why\x00 would\x1b[1m a TPU\u200b sit\r\nidle?\x7f")
    assert text == "Why would a TPU sit idle?" and notices == []


def test_line_breaks_stay_only_where_they_end_a_sentence():
    # a message wrapped by hand is one sentence; a blank line, a quoted or a bulleted line ends one
    assert clean_question("we run on\nGCP   and\tAWS, should we move?")[0] == "we run on GCP and AWS, should we move?"
    pasted = "[pasted from #infra]\n> node gpu-07 rebooted\n> disk usage at 71%\n\n\n\nok unrelated:\nwhich models suit a TPU?"
    assert clean_question(pasted)[0] == (
        "[pasted from #infra]\n> node gpu-07 rebooted\n> disk usage at 71%\nok unrelated: which models suit a TPU?")
    assert clean_question("we have:\n- 8 GPUs\n- PyTorch\nthoughts?")[0] == "we have:\n- 8 GPUs\n- PyTorch\nthoughts?"


def test_huge_questions_are_truncated_with_a_notice():
    text, notices = clean_question("x" * (MAX_QUESTION_CHARS * 5))
    assert len(text) == MAX_QUESTION_CHARS
    assert notices and str(MAX_QUESTION_CHARS) in notices[0]


def test_the_cut_is_the_configured_max_question_chars(monkeypatch: pytest.MonkeyPatch) -> None:
    from common.settings import HwbotSettings

    monkeypatch.setenv("HWBOT_MAX_QUESTION_CHARS", "150")
    limit = HwbotSettings().max_question_chars
    assert limit == 150
    text, notices = clean_question("why " * 100, limit)
    assert len(text) <= 150 and "only the first 150 were used" in notices[0]

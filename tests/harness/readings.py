"""The rules' reading of a message, for the tests that hold phrasings to what their writers meant."""

from __future__ import annotations

from knowledge.recommend import profile_from_text

__all__ = ["answers", "reads_as"]


def answers(text: str) -> dict[str, str]:
    """The profile answers the rules (``profile_from_text``) read from ``text``."""
    return profile_from_text(text).answers()


def reads_as(text: str, expected: dict[str, str], fields: tuple[str, ...]) -> dict[str, str]:
    """The rules' reading of ``text``, asserted to hold ``expected`` and nothing else among ``fields``."""
    got = answers(text)
    for field in fields:
        assert got.get(field) == expected.get(field), (text, field, got)
    return got

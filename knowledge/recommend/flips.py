"""Flips: "what would change this", found by re-scoring, never by guessing.

For every field and every other real answer (``unknown`` is not an answer a team can
give, so it is not offered as a change), the profile is copied with that one answer
changed and decided again. Only answers that produce a different recommendation are
reported, so every flip is true by construction and a test re-checks it anyway.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from knowledge.recommend.profile import FIELD_VALUES, UNKNOWN, WorkloadProfile
from knowledge.recommend.recommendation import Flip

__all__ = ["find_flips"]


def find_flips(
    profile: WorkloadProfile, current: str, decide: Callable[[Mapping[str, str]], str]
) -> list[Flip]:
    """Every single-answer change that moves the recommendation away from ``current``.

    ``decide`` maps answers (field -> value) to a recommendation kind. Fields come in
    contract order and values in their allowed order, so the list is deterministic and
    reads like the questionnaire.
    """
    answers = profile.model_dump()
    flips: list[Flip] = []
    for field, values in FIELD_VALUES.items():
        for value in values:
            if value == UNKNOWN or value == answers[field]:
                continue
            outcome = decide({**answers, field: value})
            if outcome != current:
                flips.append(Flip(field=field, value=value, recommendation=outcome))
    return flips

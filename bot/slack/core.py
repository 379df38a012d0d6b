"""The shared core as the Slack app sees it: ask a question, score a profile.

The app depends on this small protocol, not on ``QAEngine`` itself, so the wiring is
explicit and a test builds the app on the same real engine the CLI uses. Bolt runs
listeners on a thread pool; :class:`EngineCore` serializes calls into the engine
(FAISS search and the embedding model are not promised to be thread-safe, and the
machine has two cores anyway).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from knowledge.qa.models import Answer
from knowledge.recommend.models import Recommendation
from knowledge.recommend.profile import WorkloadProfile

if TYPE_CHECKING:  # pragma: no cover
    from knowledge.qa.engine import QAEngine

__all__ = ["SlackCore", "EngineCore"]


class SlackCore(Protocol):
    def ask(self, question: str) -> Answer: ...

    def recommend(self, profile: WorkloadProfile) -> Recommendation: ...


def _default_recommend(profile: WorkloadProfile) -> Recommendation:
    from knowledge.recommend.scoring import recommend

    return recommend(profile)


class EngineCore:
    """:class:`SlackCore` over a real ``QAEngine`` and ``knowledge.recommend.scoring.recommend``."""

    def __init__(
        self,
        engine: "QAEngine",
        recommend: Callable[[WorkloadProfile], Recommendation] = _default_recommend,
    ) -> None:
        self._engine = engine
        self._recommend = recommend
        self._lock = threading.Lock()

    @classmethod
    def open(cls, index_dir: Path | None = None) -> "EngineCore":
        """Load the index and model now (building the index if needed), so the first question is not the slow one."""
        from bot.runtime import get_engine

        return cls(get_engine(index_dir, progress=False))

    def ask(self, question: str) -> Answer:
        with self._lock:
            return self._engine.ask(question)

    def recommend(self, profile: WorkloadProfile) -> Recommendation:
        return self._recommend(profile)

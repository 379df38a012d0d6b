"""The Slack app's runtime: the engine it answers with and the shared state it keeps.

One name for the wiring, like :mod:`bot.engines` for the command line: a
:class:`SlackRuntime` is built once per worker process (``hwbot slack``, a test, a
bench) and handed to every listener, instead of globals. Its state lives in a
:class:`~bot.state.StateStore`, so several workers that share ``HWBOT_STATE_DIR`` (or
``HWBOT_REDIS_URL``) behave as one app.

The app depends on the small :class:`SlackEngine` protocol, not on ``QAEngine`` itself,
so a test can hold work in flight around the same real engine. :class:`EngineAnswers`
serializes calls into the engine (FAISS search and the embedding model are not promised
to be thread-safe, and the machine has two cores anyway).
"""

from __future__ import annotations

import os
import socket
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from bot.intake.questions import Questionnaire, load_questionnaire
from bot.slack.dedupe import Dedupe
from bot.slack.feedback import FeedbackStore
from bot.slack.threads import ThreadMemory
from bot.state import StateStore
from common.settings import HwbotSettings
from common.slack_settings import SlackSettings
from knowledge.recommend.profile import WorkloadProfile
from knowledge.recommend.recommendation import Recommendation

if TYPE_CHECKING:  # pragma: no cover
    from bot.advice import Advice
    from common.settings import HwbotSettings
    from knowledge.qa.service import QAEngine
    from knowledge.recommend.extraction import Extraction

__all__ = ["SlackEngine", "EngineAnswers", "SlackRuntime", "new_worker_id"]


class SlackEngine(Protocol):
    def ask(self, question: str) -> "Advice": ...

    def recommend(self, profile: WorkloadProfile) -> Recommendation: ...


def _default_recommend(profile: WorkloadProfile) -> Recommendation:
    from knowledge.recommend.recommender import recommend

    return recommend(profile)


class EngineAnswers:
    """:class:`SlackEngine` over a real ``QAEngine`` and ``knowledge.recommend.recommender.recommend``."""

    def __init__(
        self,
        engine: "QAEngine",
        recommend: Callable[[WorkloadProfile], Recommendation] = _default_recommend,
        extract: "Callable[[str], Extraction] | None" = None,
    ) -> None:
        self._engine = engine
        self._recommend = recommend
        #: the process's extraction step (the one ``recommend --text`` uses; opened lazily), or the rules
        self.extract = extract
        self._lock = threading.Lock()

    @classmethod
    def open(cls, settings: HwbotSettings, index_dir: Path | None = None) -> "EngineAnswers":
        """Load the index and model now (building the index if needed), so the first question is not the slow one.

        Messages are read with the learned extractor (opened on the first situational
        message), as ``recommend --text`` reads them.
        """
        from bot.engines import get_engine
        from bot.extractor import lazy_extractor

        return cls(get_engine(settings, index_dir=index_dir, progress=False), extract=lazy_extractor(settings))

    def ask(self, question: str) -> "Advice":
        """The cited answer, with the profile and verdict when the question was situational."""
        from bot.advice import advise

        with self._lock:
            # A situational question gets the engine's verdict, as in the CLI and the REPL.
            return advise(self._engine, question, extract=self.extract)

    def recommend(self, profile: WorkloadProfile) -> Recommendation:
        return self._recommend(profile)


def new_worker_id() -> str:
    """Unique per process start: host, pid and a nonce (a restarted pid is a new worker)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


@dataclass
class SlackRuntime:
    """What the listeners share: settings, the engine, the state store and views onto it."""

    settings: SlackSettings
    engine: SlackEngine
    state: StateStore
    feedback: FeedbackStore
    worker_id: str = field(default_factory=new_worker_id)
    questionnaire: Questionnaire = field(default_factory=load_questionnaire)
    escalation_channel: str | None = None
    dedupe: Dedupe = field(init=False)
    threads: ThreadMemory = field(init=False)

    def __post_init__(self) -> None:
        self.dedupe = Dedupe(self.state, self.worker_id)
        self.threads = ThreadMemory(self.state)

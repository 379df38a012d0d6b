"""Everything the listeners share, gathered in one explicit object instead of globals."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.intake.questions import Questionnaire, load_questionnaire
from bot.slack.core import SlackCore
from bot.slack.dedupe import DedupeStore
from bot.slack.feedback import FeedbackStore
from bot.slack.settings import SlackSettings
from bot.slack.threads import ThreadMemory

__all__ = ["SlackServices"]


@dataclass
class SlackServices:
    """The app's state: settings, the shared core, and the stores the listeners use."""

    settings: SlackSettings
    core: SlackCore
    feedback: FeedbackStore
    dedupe: DedupeStore = field(default_factory=DedupeStore)
    threads: ThreadMemory = field(default_factory=ThreadMemory)
    questionnaire: Questionnaire = field(default_factory=load_questionnaire)

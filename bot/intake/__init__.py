"""The frontend-agnostic intake: questions as data, the adaptive dialog, its state and store, the session loop.

Which question comes next is not decided here: :mod:`knowledge.recommend.questioning` picks it.
"""

from bot.intake.dialog import (
    MAX_ANSWER_CHARS,
    Turn,
    advance,
    render_question,
    resume,
    start,
    summary,
)
from bot.intake.persistence import (
    DB_NAME,
    IntakeStore,
)
from bot.intake.questions import (
    COMMAND_NAMES,
    QUESTIONS_FILE,
    AnswerOption,
    Commands,
    Question,
    Questionnaire,
    Replies,
    load_questionnaire,
    normalize_answer,
)
from bot.intake.session import (
    TERMINAL_KEY,
    SessionResult,
    intake_session,
    run_intake_session,
)
from bot.intake.state import IntakeState, Pending

__all__ = [
    "QUESTIONS_FILE",
    "AnswerOption",
    "Question",
    "Commands",
    "Replies",
    "Questionnaire",
    "load_questionnaire",
    "normalize_answer",
    "COMMAND_NAMES",
    "IntakeState",
    "Pending",
    "Turn",
    "start",
    "resume",
    "advance",
    "render_question",
    "summary",
    "MAX_ANSWER_CHARS",
    "IntakeStore",
    "DB_NAME",
    "intake_session",
    "run_intake_session",
    "SessionResult",
    "TERMINAL_KEY",
]

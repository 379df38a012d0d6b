"""The frontend-agnostic intake: questions as data, the dialog state machine, its store and the session loop.
"""

from bot.intake.dialog import (
    MAX_ANSWER_CHARS,
    IntakeState,
    Turn,
    advance,
    render_question,
    resume,
    start,
    summary,
)
from bot.intake.questions import (
    COMMAND_NAMES,
    QUESTIONS_FILE,
    AnswerOption,
    Commands,
    Question,
    Questionnaire,
    load_questionnaire,
    normalize_answer,
)
from bot.intake.session import (
    TERMINAL_KEY,
    SessionResult,
    intake_session,
    run_intake_session,
)
from bot.intake.store import (
    DB_NAME,
    IntakeStore,
)

__all__ = [
    "QUESTIONS_FILE",
    "AnswerOption",
    "Question",
    "Commands",
    "Questionnaire",
    "load_questionnaire",
    "normalize_answer",
    "COMMAND_NAMES",
    "IntakeState",
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

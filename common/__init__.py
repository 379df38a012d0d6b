"""Cross-cutting pieces every layer uses: errors, settings, the user-file reader, validation lines,
and the plain-text parsing the indexer and the FAQ extractor share (markdown blocks, sentences).

It sits below ``indexer``, ``knowledge`` and ``bot`` and imports none of them.
"""

from common.errors import (
    EXIT_FAILURE,
    EXIT_INDEX,
    EXIT_USAGE,
    ConfigError,
    HwbotError,
    IndexCorruptError,
    IndexMissingError,
    IndexStoreError,
    InputError,
    ModelMismatchError,
    ProfileError,
    QuestionnaireError,
    RuleError,
    SourceError,
    UsageError,
)
from common.settings import HwbotSettings
from common.textio import read_text_file
from common.validation import one_line_errors

__all__ = [
    "EXIT_FAILURE",
    "EXIT_INDEX",
    "EXIT_USAGE",
    "ConfigError",
    "HwbotError",
    "IndexCorruptError",
    "IndexMissingError",
    "IndexStoreError",
    "InputError",
    "ModelMismatchError",
    "ProfileError",
    "QuestionnaireError",
    "RuleError",
    "SourceError",
    "UsageError",
    "HwbotSettings",
    "read_text_file",
    "one_line_errors",
]

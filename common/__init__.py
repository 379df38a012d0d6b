"""Cross-cutting pieces every layer uses: errors, settings, the user-file reader, validation lines,
and the plain-text parsing the indexer and the FAQ extractor share (markdown blocks, sentences).

It sits below ``indexer``, ``knowledge`` and ``bot`` and imports none of them. Only the errors
are imported with the package: the settings and the validation lines bring pydantic (~0.1 s),
which a cold ``hwbot ask`` imports only after its ONNX session has started loading.
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
from common.lazy import lazy_getattr

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

__getattr__ = lazy_getattr(__name__, {
    "HwbotSettings": "common.settings",
    "read_text_file": "common.textio",
    "one_line_errors": "common.validation",
})

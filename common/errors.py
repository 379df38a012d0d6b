"""The one exception hierarchy for hwbot.

Every error a user can cause or meet derives from :class:`HwbotError`. Each carries an
exit code and an optional hint, so every front end (CLI, REPL, Slack, FAQ) shows one
clear line instead of a traceback. It lives in ``common``, below every layer, so
``indexer``, ``knowledge`` and ``bot`` all raise the same types::

    HwbotError                      exit 1  an internal failure (a write failed, ...)
    ├── UsageError                  exit 2  the command line itself is wrong
    ├── InputError                  exit 2  a question or file cannot be used as given
    │   ├── SourceError                     a knowledge source is malformed
    │   └── ProfileError                    a workload profile has wrong fields or values
    ├── ConfigError                 exit 2  the environment is misconfigured (Slack tokens, ...)
    ├── RuleError                   exit 1  a shipped rule file is invalid (a bug, not user input)
    ├── QuestionnaireError          exit 1  the shipped intake questions file is invalid
    └── IndexStoreError             exit 3  the index cannot be used; the hint names the rebuild
        ├── IndexMissingError               nothing built yet
        ├── IndexCorruptError               a file is missing, truncated or tampered with
        └── ModelMismatchError              built with another model or dimension
"""

from __future__ import annotations

__all__ = [
    "HwbotError",
    "UsageError",
    "InputError",
    "SourceError",
    "IndexStoreError",
    "IndexMissingError",
    "IndexCorruptError",
    "ModelMismatchError",
    "ProfileError",
    "QuestionnaireError",
    "RuleError",
    "ConfigError",
    "EXIT_FAILURE",
    "EXIT_USAGE",
    "EXIT_INDEX",
]

#: A runtime failure that is not the user's input (e.g. a write failed).
EXIT_FAILURE = 1
#: Bad input: a usage error, a bad profile, a bad file. Same code as click's usage errors.
EXIT_USAGE = 2
#: The index is missing, corrupt or built with another model.
EXIT_INDEX = 3


class HwbotError(Exception):
    """Base class: a message fit for one line, an exit code and a hint."""

    exit_code: int = EXIT_FAILURE

    def __init__(self, message: str, *, hint: str | None = None, exit_code: int | None = None) -> None:
        # Newlines would break the "one line" promise, so they are folded here once.
        super().__init__(" ".join(str(message).split()))
        self.hint = hint
        if exit_code is not None:
            self.exit_code = exit_code

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""

    def one_line(self) -> str:
        """The single line a user sees: the message, then the hint in parentheses."""
        if self.hint:
            return f"{self.message} ({self.hint})"
        return self.message


class UsageError(HwbotError):
    """The command line itself was wrong."""

    exit_code = EXIT_USAGE


class InputError(HwbotError):
    """User-supplied input (a question, a file) cannot be used as given."""

    exit_code = EXIT_USAGE


class SourceError(InputError):
    """A knowledge source is malformed: no id, duplicate id, empty, not UTF-8."""


class IndexStoreError(HwbotError):
    """Base for index problems. Named with a trailing underscore to avoid the builtin."""

    exit_code = EXIT_INDEX


class IndexMissingError(IndexStoreError):
    """No index has been built in the index directory yet."""


class IndexCorruptError(IndexStoreError):
    """An index file is missing, truncated or inconsistent with the manifest."""


class ModelMismatchError(IndexStoreError):
    """The index was built with another embedding model or dimension."""


class ProfileError(InputError):
    """A workload profile names an unknown field or a value outside the allowed set."""


class QuestionnaireError(HwbotError):
    """The intake's questions file (``questions.toml``) is invalid: a bad field, value or synonym.

    Shipped data like the rules, so it is an internal failure (exit 1), not the user's input.
    """


class RuleError(HwbotError):
    """A scoring rule file is invalid: unknown field/value or a citation to a missing chunk."""

    exit_code = EXIT_FAILURE


class ConfigError(HwbotError):
    """The environment is misconfigured, e.g. a missing Slack token."""

    exit_code = EXIT_USAGE

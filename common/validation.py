"""One line from a pydantic ``ValidationError``, naming every wrong field; and the checks
every rules-as-data file shares.

Pydantic reports each problem separately (unknown key, wrong type, value not allowed);
users need all of them at once, in one line, with the allowed values where there are
any, so they can fix a profile or a rule file in one edit instead of one per run.

Rule files (TOML beside the code) hold regular expressions and are loaded once per
process: :data:`Regex` checks a pattern compiles when the file is validated, so a typo
fails at load with the pattern named instead of at the first question that reaches it,
and :func:`load_rule_file` turns every way a file can be broken into one ``RuleError``.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, BaseModel, ValidationError

from common.errors import RuleError

__all__ = ["one_line_errors", "compiled", "Regex", "load_rule_file"]

M = TypeVar("M", bound=BaseModel)


def _where(loc: Sequence[Any]) -> str:
    return ".".join(str(part) for part in loc if part != "__root__") or "(top level)"


def _describe(err: Mapping[str, Any], allowed: Mapping[str, Sequence[str]], hide_input: Collection[str]) -> str:
    kind = err.get("type", "")
    loc = tuple(err.get("loc", ()))
    field = str(loc[0]) if loc else ""
    got = None if set(map(str, loc)) & set(hide_input) else err.get("input")
    if kind == "extra_forbidden":
        known = ", ".join(sorted(allowed)) if allowed else ""
        return f"{_where(loc)}: unknown field" + (f" (known fields: {known})" if known else "")
    shown = repr(got) if not isinstance(got, (dict, list)) else type(got).__name__
    if len(shown) > 40:
        shown = shown[:37] + "..."
    if field in allowed:
        return f"{_where(loc)}: {shown} is not allowed (allowed: {', '.join(allowed[field])})"
    # A validator's own ValueError reads best without pydantic's "Value error, " prefix.
    msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
    return f"{_where(loc)}: {msg}" + (f" (got {shown})" if got is not None else "")


def one_line_errors(
    exc: ValidationError, *, allowed: Mapping[str, Sequence[str]] | None = None, hide_input: Collection[str] = ()
) -> str:
    """``field: problem; field: problem`` for every error, each field named once, in input order.

    ``allowed`` maps a field name to its allowed values, so messages can list them;
    the input given for a field named in ``hide_input`` (a secret) is never shown.
    """
    seen: dict[str, str] = {}
    for err in exc.errors():
        loc = tuple(err.get("loc", ()))
        key = str(loc[0]) if loc else ""
        seen.setdefault(key, _describe(err, allowed or {}, hide_input))
    return "; ".join(seen.values())


def compiled(pattern: str) -> str:
    """``pattern`` unchanged if it compiles, else a ValueError naming it (for pydantic validators)."""
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"pattern {pattern!r} does not compile: {exc}") from None
    return pattern


#: A string field that must be a regular expression that compiles.
Regex = Annotated[str, AfterValidator(compiled)]


def load_rule_file(path: Path, model: type[M]) -> M:
    """The TOML file at ``path`` validated as ``model``; any fault is one ``RuleError`` line
    that starts with the file's name (unreadable, not TOML, or not what the model allows)."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise RuleError(f"{path.name}: cannot be read ({exc.strerror or exc})") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise RuleError(f"{path.name}: invalid TOML: {exc}") from None
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise RuleError(f"{path.name}: {one_line_errors(exc)}") from None

"""One line from a pydantic ``ValidationError``, naming every wrong field.

Pydantic reports each problem separately (unknown key, wrong type, value not allowed);
users need all of them at once, in one line, with the allowed values where there are
any, so they can fix a profile or a rule file in one edit instead of one per run.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from pydantic import ValidationError

__all__ = ["one_line_errors"]


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

"""One line from a pydantic ``ValidationError``, naming every wrong field.

Pydantic reports each problem separately (unknown key, wrong type, value not allowed);
users need all of them at once, in one line, with the allowed values where there are
any, so they can fix a profile or a rule file in one edit instead of one per run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

__all__ = ["one_line_errors"]


def _where(loc: Sequence[Any]) -> str:
    return ".".join(str(part) for part in loc) or "(top level)"


def _describe(err: Mapping[str, Any], allowed: Mapping[str, Sequence[str]]) -> str:
    kind = err.get("type", "")
    loc = tuple(err.get("loc", ()))
    field = str(loc[0]) if loc else ""
    got = err.get("input")
    if kind == "extra_forbidden":
        known = ", ".join(sorted(allowed)) if allowed else ""
        return f"{_where(loc)}: unknown field" + (f" (known fields: {known})" if known else "")
    shown = repr(got) if not isinstance(got, (dict, list)) else type(got).__name__
    if len(shown) > 40:
        shown = shown[:37] + "..."
    if field in allowed:
        return f"{_where(loc)}: {shown} is not allowed (allowed: {', '.join(allowed[field])})"
    return f"{_where(loc)}: {err.get('msg', 'invalid')}" + (f" (got {shown})" if got is not None else "")


def one_line_errors(exc: ValidationError, *, allowed: Mapping[str, Sequence[str]] | None = None) -> str:
    """``field: problem; field: problem`` for every error, each field named once, in input order.

    ``allowed`` maps a field name to its allowed values, so messages can list them.
    """
    seen: dict[str, str] = {}
    for err in exc.errors():
        loc = tuple(err.get("loc", ()))
        key = str(loc[0]) if loc else ""
        seen.setdefault(key, _describe(err, allowed or {}))
    return "; ".join(seen.values())

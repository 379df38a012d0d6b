"""The decision model as data: TOML in ``knowledge/recommend/rules/``, validated by pydantic.

Why data: the reasoning lives in one reviewable place, each sentence next to the chunk of
the notes it rests on. Why strict: a condition naming a value the profile lacks would
never fire, and a citation to a chunk that moved would cite the wrong text; both fail at
load with a :class:`~common.errors.RuleError` naming the entry and its file.

Entries, in any ``*.toml`` file of the rules directory:

* ``[[factor]]``: one answer (one field), the words shown as its reason, which way it
  leans, and its ``fit`` points (the workload side of the decision);
* ``[[blocker]]``: a readiness blocker (a cited, sized to-do), a ``far`` blocker, or the
  ``gate`` (no TPU here at all);
* ``[[far]]``: blockers that together are too far to plan for now;
* ``[[caveat]]``: advice shown when its condition holds and the verdict is ``recommended``;
* ``[decision]``, ``[order]``, ``[priors]``, ``[[table]]``, ``[default_reason]`` (once each).

Monotonicity is checked here, at load: down each field's ``[order]`` the fit points never
rise and end at 0, and every blocker condition names a tail of the order, so a worse
answer can only lower the fit and add blockers (:mod:`knowledge.recommend.modelcheck`).
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from common.errors import HwbotError, RuleError
from common.validation import one_line_errors
from indexer.chunking import Chunk
from indexer.corpus import catalog
from knowledge.paths import SOURCES_DIR
from knowledge.recommend.modelcheck import check_model
from knowledge.recommend.profile import FIELD_VALUES
from knowledge.recommend.rule_schema import (  # the schema, re-exported for callers
    FIT_LEVELS,
    READINESS,
    VERDICTS,
    Blocker,
    Caveat,
    DecisionParams,
    DefaultReason,
    Factor,
    Far,
    Prior,
    RuleSet,
    TableRow,
    _Cited,
    _RuleFile,
)

#: The shipped rule files, package data beside this module.
RULES_DIR = Path(__file__).resolve().parent / "rules"

__all__ = [
    "VERDICTS",
    "FIT_LEVELS",
    "READINESS",
    "Factor",
    "Blocker",
    "Far",
    "Caveat",
    "DefaultReason",
    "DecisionParams",
    "RuleSet",
    "chunk_catalog",
    "load_rules",
    "parse_rule_files",
]

@lru_cache(maxsize=8)
def chunk_catalog(sources_dir: Path = SOURCES_DIR) -> dict[str, Chunk]:
    """The citable chunks of a sources directory, computed once per process (no model, no FAISS)."""
    return catalog(Path(sources_dir))


def _check_citations(entry: _Cited, catalog: dict[str, Chunk], where: str) -> None:
    terms = [t.lower() for t in entry.subject]
    for chunk_id in entry.citations:
        chunk = catalog.get(chunk_id)
        if chunk is None:
            known = ", ".join(sorted(catalog)) or "none"
            raise RuleError(f"{where}: cites chunk {chunk_id!r}, which is not in the notes (chunks: {known})")
        text = " ".join([*chunk.heading_path, chunk.text]).lower()
        if not any(term in text for term in terms):
            raise RuleError(
                f"{where}: cited chunk {chunk_id} does not mention its subject ({', '.join(entry.subject)})"
            )


_KINDS: tuple[tuple[str, type[_Cited]], ...] = (("factor", Factor), ("blocker", Blocker), ("far", Far), ("caveat", Caveat))
_SINGLETONS = ("decision", "order", "priors", "table", "default_reason")


def _entries(parsed: _RuleFile, name: str, catalog: dict[str, Chunk], origin: dict[str, str]) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {kind: [] for kind, _ in _KINDS}
    for kind, model in _KINDS:
        for i, data in enumerate(getattr(parsed, kind)):
            rid = data.get("id") if isinstance(data.get("id"), str) else f"#{i + 1}"
            where = f"{kind} {rid!r} in {name}"
            try:
                entry = model.model_validate(data)
            except ValidationError as exc:
                raise RuleError(f"{where}: {one_line_errors(exc)}") from None
            if entry.id in origin:
                raise RuleError(f"{where}: duplicate id (also in {origin[entry.id]})")
            _check_citations(entry, catalog, where)
            origin[entry.id] = name
            out[kind].append(entry)
    return out


def _priors(raw: dict[str, dict[str, Any]], order: dict[str, tuple[str, ...]],
            catalog: dict[str, Chunk]) -> tuple[dict[str, dict[str, float]], dict[str, str]]:
    """Normalized weights per field, and each field's rationale; every field must have an entry."""
    unknown_fields = set(raw) - set(order)
    if unknown_fields:
        raise RuleError(f"[priors]: unknown field(s) {', '.join(sorted(unknown_fields))}")
    missing = [f for f in order if f not in raw]
    if missing:
        raise RuleError(f"[priors]: no entry (weights and rationale) for {', '.join(missing)}")
    priors: dict[str, dict[str, float]] = {}
    why: dict[str, str] = {}
    for field, values in order.items():
        try:
            entry = Prior.model_validate(raw[field])
        except ValidationError as exc:
            raise RuleError(f"[priors.{field}]: {one_line_errors(exc)}") from None
        given = entry.weights
        if set(given) - set(values) or any(w <= 0 for w in given.values()):
            raise RuleError(f"[priors.{field}]: weights must be positive and name only {', '.join(values)}")
        for chunk_id in entry.citations:
            chunk = catalog.get(chunk_id)
            text = " ".join([*chunk.heading_path, chunk.text]).lower() if chunk else ""
            if chunk is None or not any(t.lower() in text for t in entry.subject):
                raise RuleError(f"[priors.{field}]: cited chunk {chunk_id} is not in the notes or does not mention "
                                f"{', '.join(entry.subject)}")
        weights = {v: float(given.get(v, 1.0)) for v in values}
        total = sum(weights.values())
        priors[field] = {v: w / total for v, w in weights.items()}
        why[field] = entry.rationale
    return priors, why


def _assemble(found: dict[str, list[Any]], singles: dict[str, tuple[str, Any]], catalog: dict[str, Chunk],
              origin: dict[str, str]) -> RuleSet:
    for key in _SINGLETONS:
        if key not in singles:
            raise RuleError(f"rules: no [{key}] table in any rules file")
    where = {k: f"[{k}] in {singles[k][0]}" for k in singles}
    try:
        decision = DecisionParams.model_validate(singles["decision"][1])
        rows = [TableRow.model_validate(r) for r in singles["table"][1]]
        default = DefaultReason.model_validate(singles["default_reason"][1])
    except ValidationError as exc:
        raise RuleError(f"decision model: {one_line_errors(exc)}") from None
    _check_citations(default, catalog, where["default_reason"])
    order = {f: tuple(v) for f, v in singles["order"][1].items()}
    table = {(row.fit, r): v for row in rows for r, v in row.verdicts.items()}
    if not found["factor"]:
        raise RuleError("rules: no [[factor]] entries found")
    priors, why = _priors(singles["priors"][1], order, catalog) if set(order) == set(FIELD_VALUES) else ({}, {})
    cited = {c for kind in found.values() for e in kind for c in e.citations} | set(default.citations)
    cited |= {c for entry in singles["priors"][1].values() if isinstance(entry, dict) for c in entry.get("citations", ())}
    rules = RuleSet(
        factors=tuple(found["factor"]), blockers=tuple(found["blocker"]), fars=tuple(found["far"]),
        caveats=tuple(found["caveat"]), decision=decision, order=order,
        priors=priors, prior_rationale=why,
        table=table, default_reason=default,
        labels={c: catalog[c].label for c in sorted(cited)}, origin=origin,
    )
    problem = check_model(rules)
    if problem:
        raise RuleError(f"decision model: {problem}")
    return rules


def parse_rule_files(files: dict[str, str], catalog: dict[str, Chunk]) -> RuleSet:
    """Validate rule files given as name -> TOML text against a chunk catalog.

    Separate from :func:`load_rules` so tests can feed broken files without touching disk.
    """
    found: dict[str, list[Any]] = {kind: [] for kind, _ in _KINDS}
    singles: dict[str, tuple[str, Any]] = {}
    origin: dict[str, str] = {}
    for name in sorted(files):
        try:
            raw = tomllib.loads(files[name])
        except tomllib.TOMLDecodeError as exc:
            raise RuleError(f"rules file {name}: invalid TOML: {exc}") from None
        try:
            parsed = _RuleFile.model_validate(raw)
        except ValidationError as exc:
            raise RuleError(f"rules file {name}: {one_line_errors(exc)}") from None
        for kind, entries in _entries(parsed, name, catalog, origin).items():
            found[kind].extend(entries)
        for key in _SINGLETONS:
            value = getattr(parsed, key)
            if value is None:
                continue
            if key in singles:
                raise RuleError(f"rules file {name}: a second [{key}] table (only one is allowed)")
            singles[key] = (name, value)
    return _assemble(found, singles, catalog, origin)


def load_rules(rules_dir: Path = RULES_DIR, sources_dir: Path = SOURCES_DIR) -> RuleSet:
    """Load and validate every ``*.toml`` in ``rules_dir`` (cached per directory pair)."""
    return _load_rules_cached(Path(rules_dir), Path(sources_dir))


@lru_cache(maxsize=8)
def _load_rules_cached(rules_dir: Path, sources_dir: Path) -> RuleSet:
    if not rules_dir.is_dir():
        raise RuleError(f"{rules_dir}: rules directory not found")
    files: dict[str, str] = {}
    for path in sorted(rules_dir.glob("*.toml")):
        try:
            files[path.name] = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise RuleError(f"rules file {path.name}: cannot read: {exc}") from None
    if not files:
        raise RuleError(f"{rules_dir}: no *.toml rules files")
    try:
        catalog = chunk_catalog(sources_dir)
    except HwbotError as exc:
        raise RuleError(f"cannot read the notes to check rule citations: {exc.message}") from None
    return parse_rule_files(files, catalog)

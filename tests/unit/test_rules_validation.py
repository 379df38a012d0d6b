"""The decision model's files: the shipped ones are valid and honest, broken ones fail at load by name.

"Honest" means every citation exists in the notes and the cited chunk really speaks of the
entry's subject. "Sound" means the structure that makes the engine monotone holds (orders,
non-increasing fit points, blocker conditions on the worst values, a monotone table).
Broken files go through :func:`parse_rule_files` and must raise a one-line
:class:`RuleError` naming the entry and its file.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from common.errors import RuleError
from knowledge.paths import SOURCES_DIR
from knowledge.recommend.profile import FIELD_VALUES
from knowledge.recommend.rules import RULES_DIR, chunk_catalog, load_rules, parse_rule_files

SHIPPED = {p.name: p.read_text(encoding="utf-8") for p in sorted(RULES_DIR.glob("*.toml"))}

GOOD_BLOCKER = """
[[blocker]]
id = "t.blocker"
kind = "fixable"
rank = 3
when = { data_pipeline = ["cannot_keep_up"] }
effort = "weeks"
text = "Fix the input pipeline."
subject = ["input pipeline"]
citations = ["file_gpu002:c0003"]
"""


def _parse(extra: str, name: str = "broken.toml"):
    return parse_rule_files({**SHIPPED, name: extra}, chunk_catalog())


def test_shipped_rules_load_and_cite_existing_chunks_about_their_subject() -> None:
    rules = load_rules()
    catalog = chunk_catalog()
    entries = (*rules.factors, *rules.blockers, *rules.fars, *rules.caveats, rules.default_reason)
    assert len(rules.factors) >= 30 and rules.blockers and rules.caveats
    for entry in entries:
        assert entry.citations
        for chunk_id in entry.citations:
            assert chunk_id in catalog, f"{entry.id} cites missing {chunk_id}"
            text = (" ".join(catalog[chunk_id].heading_path) + " " + catalog[chunk_id].text).lower()
            assert any(term.lower() in text for term in entry.subject), f"{entry.id}: {chunk_id} off-subject"
            assert rules.label(chunk_id) == catalog[chunk_id].label


def test_every_answer_has_exactly_one_factor_and_every_field_an_order() -> None:
    rules = load_rules()
    for field, values in FIELD_VALUES.items():
        assert set(rules.order[field]) == set(values) - {"unknown"}
        for value in rules.order[field]:
            assert rules.factor_for(field, value) is not None, (field, value)


def test_the_gate_is_the_only_tpu_availability_blocker() -> None:
    gates = [b for b in load_rules().blockers if b.kind == "gate"]
    assert [(b.id, dict(b.when)) for b in gates] == [("cloud.no_tpu_here", {"cloud": ("multi_cloud", "on_prem")})]


def test_a_valid_extra_blocker_parses() -> None:
    rules = _parse(GOOD_BLOCKER, "good.toml")
    assert "t.blocker" in {b.id for b in rules.blockers}
    assert rules.origin["t.blocker"] == "good.toml"


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (("data_pipeline = [", "pipeline = ["), "unknown field 'pipeline'"),
        (('["cannot_keep_up"]', '["slow"]'), "value 'slow'; allowed values: cannot_keep_up, keeps_up, unknown"),
        (("file_gpu002:c0003", "file_gpu002:c0099"), "cites chunk 'file_gpu002:c0099', which is not in the notes"),
        (('subject = ["input pipeline"]', 'subject = ["pallas"]'), "does not mention its subject"),
        (('subject = ["input pipeline"]', 'subject = ["TPU"]'), "too generic"),
        (('kind = "fixable"', 'kind = "maybe"'), "kind"),
        (('effort = "weeks"', 'effort = "a while"'), "effort"),
        (('when = { data_pipeline = ["cannot_keep_up"] }', "when = {}"), "needs a condition"),
        (('when = { data_pipeline = ["cannot_keep_up"] }', 'when = { data_pipeline = ["unknown"] }'), "'unknown'"),
        (('text = "Fix the input pipeline."', 'text = """two\nlines"""'), "one line"),
        (('id = "t.blocker"', 'id = "Bad Id"'), "id must be"),
        (('citations = ["file_gpu002:c0003"]', "citations = []"), "citations"),
        (('citations = ["file_gpu002:c0003"]', 'citations = ["file_gpu002:c0003"]\ncolour = "red"'), "colour"),
    ],
)
def test_broken_entry_fails_at_load_naming_entry_and_file(change: tuple[str, str], expected: str) -> None:
    old, new = change
    assert old in GOOD_BLOCKER
    with pytest.raises(RuleError) as info:
        _parse(GOOD_BLOCKER.replace(old, new, 1))
    message = info.value.one_line()
    assert "broken.toml" in message and ("'t.blocker'" in message or "Bad Id" in message)
    assert expected in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("file", "old", "new", "expected"),
    [
        # A blocker on a field's *best* value would make a better answer block: not monotone.
        ("blockers.toml", 'when = { data_pipeline = ["cannot_keep_up"] }', 'when = { data_pipeline = ["keeps_up"] }',
         "must name its worst values"),
        ("factors.toml", 'id = "scale.multi_device"\nwhen = { scale = ["multi_device"] }\nfit = 2',
         'id = "scale.multi_device"\nwhen = { scale = ["multi_device"] }\nfit = 5', "must not rise down its order"),
        ("decision.toml", 'verdicts = { ready = "tpu", pending = "gpu", fixable = "gpu", far = "gpu" }',
         'verdicts = { ready = "tpu", pending = "gpu", fixable = "tpu", far = "gpu" }', "worse readiness must never"),
        ("decision.toml", 'verdicts = { ready = "gpu", pending = "gpu", fixable = "gpu", far = "gpu" }',
         'verdicts = { ready = "gpu_then_tpu", pending = "gpu_then_tpu", fixable = "gpu_then_tpu", far = "gpu_then_tpu" }',
         "higher fit must never"),
        ("decision.toml", 'stage = ["production", "stabilizing", "exploration"]', 'stage = ["production", "exploration"]',
         "[order] stage must list exactly"),
        ("caveats.toml", 'when = { architecture_changes = ["sometimes", "unknown"] }',
         'when = { architecture_changes = ["often", "unknown"] }', "is a blocker (a tpu verdict cannot have it)"),
    ],
)
def test_an_unsound_model_is_refused(file: str, old: str, new: str, expected: str) -> None:
    assert old in SHIPPED[file], (file, old)
    files = {**SHIPPED, file: SHIPPED[file].replace(old, new, 1)}
    with pytest.raises(RuleError) as info:
        parse_rule_files(files, chunk_catalog())
    assert expected in info.value.one_line()


def test_duplicate_ids_across_files_are_refused() -> None:
    files = {**SHIPPED, "a.toml": GOOD_BLOCKER, "b.toml": GOOD_BLOCKER}
    with pytest.raises(RuleError, match=r"blocker 't.blocker' in b.toml: duplicate id \(also in a.toml\)"):
        parse_rule_files(files, chunk_catalog())


@pytest.mark.parametrize(
    ("drop", "extra", "expected"),
    [
        ("decision.toml", "", "no [decision] table"),
        (None, "[decision]\nfit_high = 9\nfit_medium = 7\n", "a second [decision] table"),
        (None, "[[factor]\nid = 1", "invalid TOML"),
        (None, "[[rules]]\nid = 'x'", "rules file broken.toml: rules"),
    ],
)
def test_broken_rule_sets(drop: str | None, extra: str, expected: str) -> None:
    files = {k: v for k, v in SHIPPED.items() if k != drop}
    files["broken.toml"] = extra
    with pytest.raises(RuleError) as info:
        parse_rule_files(files, chunk_catalog())
    assert expected in info.value.one_line()


def test_caveats_are_validated_like_blockers() -> None:
    caveat = """
[[caveat]]
id = "c.bad"
when = { cloud = ["mars"] }
recommended = ["tpu"]
text = "A caveat."
subject = ["google cloud"]
citations = ["file_gpu002:c0003"]
"""
    with pytest.raises(RuleError, match=r"caveat 'c.bad' in c.toml: .*value 'mars'"):
        parse_rule_files({**SHIPPED, "c.toml": caveat}, chunk_catalog())


def test_a_bad_file_in_a_rules_directory_fails_load_rules(tmp_path: Path) -> None:
    rules_dir = tmp_path / "rules"
    shutil.copytree(RULES_DIR, rules_dir)
    (rules_dir / "zz_extra.toml").write_text(GOOD_BLOCKER.replace("c0003", "c0042"), encoding="utf-8")
    with pytest.raises(RuleError) as info:
        load_rules(rules_dir, SOURCES_DIR)
    assert "blocker 't.blocker' in zz_extra.toml: cites chunk 'file_gpu002:c0042'" in info.value.one_line()


def test_missing_or_empty_rules_directory(tmp_path: Path) -> None:
    with pytest.raises(RuleError, match="rules directory not found"):
        load_rules(tmp_path / "nope", SOURCES_DIR)
    (tmp_path / "empty").mkdir()
    with pytest.raises(RuleError, match="no \\*.toml rules files"):
        load_rules(tmp_path / "empty", SOURCES_DIR)

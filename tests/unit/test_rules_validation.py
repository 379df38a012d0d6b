"""The rule files: the shipped ones are valid and honest, broken ones fail at load by name.

"Honest" means every citation exists in the notes and the cited chunk really speaks of
the rule's subject. Broken files are fed through :func:`parse_rule_files` (and once
through a real directory) and must raise a one-line :class:`RuleError` that names the
rule and its file.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from common.errors import RuleError
from knowledge.paths import SOURCES_DIR
from knowledge.recommend.profile import FIELD_VALUES
from knowledge.recommend.rules import RULES_DIR, chunk_catalog, load_rules, parse_rule_files

DECISION = """
[decision]
clear_margin = 4
confidence_base = 0.5
confidence_span = 0.45
confidence_scale = 5.0
unknown_penalty = 0.04
confidence_floor = 0.1
confidence_cap = 0.95
"""

GOOD_RULE = """
[[rule]]
id = "t.rule"
when = { stage = ["exploration"] }
points = { gpu = 3 }
explanation = "Exploratory work belongs on GPUs."
subject = ["exploratory"]
citations = ["file_gpu001:c0002"]
"""


def _parse(rule_text: str, name: str = "broken.toml"):
    return parse_rule_files({"decision.toml": DECISION, name: rule_text}, chunk_catalog())


def test_shipped_rules_load_and_cite_existing_chunks_about_their_subject() -> None:
    rules = load_rules()
    catalog = chunk_catalog()
    assert len(rules.rules) >= 20 and rules.caveats
    for entry in (*rules.rules, *rules.caveats):
        assert entry.citations
        for chunk_id in entry.citations:
            assert chunk_id in catalog, f"{entry.id} cites missing {chunk_id}"
            text = (" ".join(catalog[chunk_id].heading_path) + " " + catalog[chunk_id].text).lower()
            assert any(term.lower() in text for term in entry.subject), f"{entry.id}: {chunk_id} off-subject"
            assert rules.label(chunk_id) == catalog[chunk_id].label


def test_every_profile_field_is_used_by_some_rule() -> None:
    """A question no rule reads would be asked for nothing."""
    used = {field for rule in load_rules().rules for field in rule.when}
    assert used == set(FIELD_VALUES)


def test_the_only_hard_constraint_is_tpu_availability() -> None:
    constraints = [r for r in load_rules().rules if r.is_constraint]
    assert [(r.id, dict(r.when), r.blocks) for r in constraints] == [
        ("cloud.tpu_unavailable", {"cloud": ("multi_cloud", "on_prem")}, ("tpu", "gpu_then_tpu"))
    ]


def test_a_valid_minimal_file_parses() -> None:
    rules = _parse(GOOD_RULE, "good.toml")
    assert [r.id for r in rules.rules] == ["t.rule"]
    assert rules.origin["t.rule"] == "good.toml"


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (("stage = [", "stag = ["), "unknown field 'stag'"),
        (('["exploration"]', '["explore"]'), "value 'explore'; allowed values: exploration, stabilizing, production"),
        (("file_gpu001:c0002", "file_gpu001:c0099"), "cites chunk 'file_gpu001:c0099', which is not in the notes"),
        (('subject = ["exploratory"]', 'subject = ["pallas"]'), "does not mention its subject"),
        (('subject = ["exploratory"]', 'subject = ["GPU"]'), "too generic"),
        (("points = { gpu = 3 }", 'points = { gpu = 3 }\nblocks = ["tpu", "gpu_then_tpu"]'), "exactly one effect"),
        (("points = { gpu = 3 }", ""), "exactly one effect"),
        (("points = { gpu = 3 }", 'blocks = ["gpu"]'), "'gpu' cannot be blocked"),
        (("points = { gpu = 3 }", 'blocks = ["tpu"]'), "must also block 'gpu_then_tpu'"),
        (("points = { gpu = 3 }", "points = { fpga = 3 }"), "points.fpga"),
        (("points = { gpu = 3 }", "points = { gpu = 0 }"), "non-zero"),
        (('when = { stage = ["exploration"] }', 'when = { stage = ["exploration"], scale = ["massive"] }'), "exactly one field"),
        (('explanation = "Exploratory work belongs on GPUs."', 'explanation = """two\nlines"""'), "one line"),
        (('id = "t.rule"', 'id = "Bad Id"'), "id must be"),
        (('citations = ["file_gpu001:c0002"]', "citations = []"), "citations"),
        (('citations = ["file_gpu001:c0002"]', 'citations = ["file_gpu001:c0002"]\ncolour = "red"'), "colour"),
    ],
)
def test_broken_rule_fails_at_load_naming_rule_and_file(change: tuple[str, str], expected: str) -> None:
    old, new = change
    assert old in GOOD_RULE
    with pytest.raises(RuleError) as info:
        _parse(GOOD_RULE.replace(old, new, 1), "broken.toml")
    message = info.value.one_line()
    assert "broken.toml" in message
    assert "'t.rule'" in message or "Bad Id" in message
    assert expected in message
    assert "\n" not in message


def test_duplicate_ids_across_files_are_refused() -> None:
    files = {"decision.toml": DECISION, "a.toml": GOOD_RULE, "b.toml": GOOD_RULE}
    with pytest.raises(RuleError, match=r"rule 't.rule' in b.toml: duplicate id \(also in a.toml\)"):
        parse_rule_files(files, chunk_catalog())


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"a.toml": GOOD_RULE}, "no [decision] table"),
        ({"d1.toml": DECISION, "d2.toml": DECISION, "a.toml": GOOD_RULE}, "a second [decision] table"),
        ({"decision.toml": DECISION.replace("clear_margin = 4", "clear_margin = 0"), "a.toml": GOOD_RULE}, "clear_margin"),
        ({"decision.toml": DECISION, "a.toml": "[[rule]\nid = 1"}, "a.toml: invalid TOML"),
        ({"decision.toml": DECISION, "a.toml": "[[rules]]\nid = 'x'"}, "rules file a.toml: rules"),
        ({"decision.toml": DECISION}, "no [[rule]] entries"),
    ],
)
def test_broken_rule_sets(files: dict[str, str], expected: str) -> None:
    with pytest.raises(RuleError) as info:
        parse_rule_files(files, chunk_catalog())
    assert expected in info.value.one_line()


def test_caveats_are_validated_like_rules() -> None:
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
        parse_rule_files({"decision.toml": DECISION, "a.toml": GOOD_RULE, "c.toml": caveat}, chunk_catalog())


def test_a_bad_file_in_a_rules_directory_fails_load_rules(tmp_path: Path) -> None:
    rules_dir = tmp_path / "rules"
    shutil.copytree(RULES_DIR, rules_dir)
    (rules_dir / "zz_extra.toml").write_text(GOOD_RULE.replace("c0002", "c0042"), encoding="utf-8")
    with pytest.raises(RuleError) as info:
        load_rules(rules_dir, SOURCES_DIR)
    assert "rule 't.rule' in zz_extra.toml: cites chunk 'file_gpu001:c0042'" in info.value.one_line()


def test_missing_or_empty_rules_directory(tmp_path: Path) -> None:
    with pytest.raises(RuleError, match="rules directory not found"):
        load_rules(tmp_path / "nope", SOURCES_DIR)
    (tmp_path / "empty").mkdir()
    with pytest.raises(RuleError, match="no \\*.toml rules files"):
        load_rules(tmp_path / "empty", SOURCES_DIR)

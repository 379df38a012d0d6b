"""The sentence forms beside the notes: valid, current, and enough of them to lead.

The lint fails the build when a sentence that can lead an answer has fewer than
``MIN_FORMS`` question forms, or when a forms file names a sentence that is no longer a
sentence of its note (stale after a notes edit: its forms would never match again).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from common.errors import SourceError
from indexer.corpus import load_corpus
from indexer.forms import forms_sha256, read_forms
from knowledge.paths import SOURCES_DIR

MIN_FORMS = 3


@pytest.fixture(scope="module")
def note_sentences() -> dict[str, set[str]]:
    """source file stem → every sentence of its chunks (what compose can quote)."""
    _, chunks = load_corpus(SOURCES_DIR)
    out: dict[str, set[str]] = {}
    for c in chunks:
        out.setdefault(Path(c.file).stem, set()).update(c.sentences)
    return out


def test_every_source_has_a_forms_file(note_sentences):
    assert set(read_forms(SOURCES_DIR)) == set(note_sentences)


def test_forms_name_only_current_sentences(note_sentences):
    stale = [
        f"{stem}: {e.text[:70]}"
        for stem, entries in read_forms(SOURCES_DIR).items()
        for e in entries
        if e.text not in note_sentences.get(stem, set())
    ]
    assert not stale, "forms for sentences the notes no longer hold: " + "; ".join(stale)


def test_every_leading_sentence_has_enough_forms():
    thin = [
        f"{stem}: {e.text[:70]} ({len(e.forms)})"
        for stem, entries in read_forms(SOURCES_DIR).items()
        for e in entries
        if e.lead and len(set(e.forms)) < MIN_FORMS
    ]
    assert not thin, f"sentences that can lead with fewer than {MIN_FORMS} forms: " + "; ".join(thin)


def test_every_note_sentence_that_can_lead_is_covered(note_sentences):
    """A sentence with no forms entry at all is as thin as one with too few."""
    covered = {stem: {e.text for e in entries} for stem, entries in read_forms(SOURCES_DIR).items()}
    missing = [
        f"{stem}: {s[:70]}"
        for stem, sentences in note_sentences.items()
        for s in sentences
        if s not in covered.get(stem, set()) and len(s.split()) >= 5 and not s.endswith("?")
    ]
    assert not missing, "note sentences without question forms: " + "; ".join(sorted(missing))


def test_a_malformed_forms_file_is_one_line(tmp_path):
    (tmp_path / "forms").mkdir()
    (tmp_path / "forms" / "x.toml").write_text('[[sentence]]\ntext = "A sentence."\nform = ["typo key"]\n')
    with pytest.raises(SourceError) as err:
        read_forms(tmp_path)
    assert "x.toml" in str(err.value) and "\n" not in str(err.value)


def test_forms_hash_follows_the_files(tmp_path):
    assert forms_sha256(tmp_path) == ""
    (tmp_path / "forms").mkdir()
    (tmp_path / "forms" / "x.toml").write_text('[[sentence]]\ntext = "A sentence."\nforms = ["a?", "b?", "c?"]\n')
    first = forms_sha256(tmp_path)
    (tmp_path / "forms" / "x.toml").write_text('[[sentence]]\ntext = "A sentence."\nforms = ["a?", "b?", "d?"]\n')
    assert first and forms_sha256(tmp_path) != first

"""The store: incremental builds, atomic writes, validated loading and clear errors."""

from __future__ import annotations

import hashlib
import json
import shutil
import struct

import numpy as np
import pytest

from common.errors import IndexCorruptError, IndexMissingError, ModelMismatchError, SourceError
from indexer.build import build_index
from indexer.freshness import recorded_sources_dir, staleness
from indexer.manifest import current_generation
from indexer.ondisk import load_store
from knowledge.qa.fixed_texts import query_side_texts

#: the answering side's fixed texts, as every real build embeds them
FIXED = query_side_texts()


def test_session_index_is_complete(built_index, embedder):
    store = load_store(built_index)
    m = store.manifest
    assert m.model.id == embedder.model_id and m.model.dim == 384
    assert m.index_type == "flat" and m.metric == "inner_product"
    assert store.index.ntotal == len(store.chunks) == m.n_chunks
    assert store.sentence_vectors.shape == (m.n_sentences, 384)
    assert store.heading_vectors.shape == (m.n_headings, 384) and m.n_headings > 0
    assert all(0 <= c.heading_row < m.n_headings for c in store.chunks)
    assert np.allclose(np.linalg.norm(store.chunk_vectors, axis=1), 1.0, atol=1e-4)
    assert {s.id for s in m.sources} >= {"file_gpu001", "file_gpu002"}
    assert all(len(s.sha256) == 64 for s in m.sources)
    store.check_model(embedder.model_id, embedder.dim, embedder.probe())


def test_unchanged_rebuild_embeds_nothing(index_copy, sources_dir, embedder):
    report = build_index(sources_dir, index_copy, embedder, progress=False, query_texts=FIXED)
    assert report.embedded == 0 and report.reused > 0 and not report.changed
    assert staleness(index_copy, sources_dir) is None


def test_changed_source_reembeds_only_what_changed(index_copy, sources_dir, embedder, tmp_path):
    src = tmp_path / "sources"
    shutil.copytree(sources_dir, src)
    before = load_store(index_copy)
    assert staleness(index_copy, src) == f"sources are now read from {src}"
    moved = build_index(src, index_copy, embedder, progress=False, query_texts=FIXED)  # same text elsewhere: nothing re-embedded
    assert moved.changed and moved.embedded == 0
    assert staleness(index_copy, src) is None and staleness(index_copy) is None
    notes = src / "tpu_decision_criteria.md"
    notes.write_text(notes.read_text(encoding="utf-8") + "\n## Extra\n\nA new sentence about TPU pods and their interconnect speed.\n", encoding="utf-8")
    assert staleness(index_copy, src).startswith("sources changed: tpu_decision_criteria.md")
    assert staleness(index_copy).startswith("sources changed: tpu_decision_criteria.md")  # judged against src
    report = build_index(src, index_copy, embedder, progress=False, query_texts=FIXED)
    assert report.changed and 0 < report.embedded <= 4  # the new or grown chunk(s) and the new sentence
    after = load_store(index_copy)
    old = {c.chunk_id: before.chunk_vectors[c.row] for c in before.chunks if c.source_id == "file_gpu001"}
    for c in after.chunks:
        if c.source_id == "file_gpu001":
            assert np.array_equal(after.chunk_vectors[c.row], old[c.chunk_id])


@pytest.mark.slow  # a whole rebuild
def test_full_rebuild_reembeds_everything(index_copy, sources_dir, embedder):
    report = build_index(sources_dir, index_copy, embedder, progress=False, rebuild=True, query_texts=FIXED)
    manifest = load_store(index_copy).manifest
    assert report.reused == 0 and report.changed
    # chunks, sentences, headings, the sentences' question forms (indexer.forms) and the
    # answering side's fixed texts (indexer.query_texts)
    most = report.chunks + report.sentences + manifest.n_headings + manifest.n_forms + manifest.n_query_texts
    assert report.chunks <= report.embedded <= most


def test_bad_source_leaves_the_old_index_untouched(index_copy, sources_dir, embedder, tmp_path):
    src = tmp_path / "sources"
    shutil.copytree(sources_dir, src)
    (src / "broken.md").write_bytes(b"---\nid: x\n---\n\xff\xfe bad bytes")
    gen_before = current_generation(index_copy)
    with pytest.raises(SourceError, match="broken.md"):
        build_index(src, index_copy, embedder, progress=False, query_texts=FIXED)
    assert current_generation(index_copy) == gen_before
    load_store(index_copy)  # still loads


def test_missing_index(tmp_path):
    with pytest.raises(IndexMissingError) as info:
        load_store(tmp_path / "nothing")
    assert "hwbot index" in info.value.one_line()


@pytest.mark.parametrize(
    "victim, action",
    [
        ("manifest.json", "garbage"),
        ("manifest.json", "delete"),
        ("chunks.jsonl", "truncate"),
        ("chunk_vectors.npy", "truncate"),
        ("sentence_vectors.npy", "delete"),
        ("heading_vectors.npy", "truncate"),
        ("index.faiss", "garbage"),
        ("CURRENT", "garbage"),
    ],
)
def test_corrupt_index_gives_rebuild_hint(index_copy, victim, action):
    gen = current_generation(index_copy)
    path = index_copy / "CURRENT" if victim == "CURRENT" else gen / victim
    if action == "delete":
        path.unlink()
    elif action == "truncate":
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    else:
        path.write_bytes(b"not-a-generation/../x" if victim == "CURRENT" else b"\x00garbage")
    with pytest.raises((IndexCorruptError, IndexMissingError)) as info:
        load_store(index_copy)
    line = info.value.one_line()
    assert "\n" not in line and "hwbot index" in line


def _edit_manifest(index_dir, **changes):
    path = current_generation(index_dir) / "manifest.json"
    data = json.loads(path.read_text())
    for dotted, value in changes.items():
        target = data
        *head, last = dotted.split(".")
        for key in head:
            target = target[key]
        target[last] = value
    path.write_text(json.dumps(data))


def test_model_id_mismatch(index_copy, embedder):
    _edit_manifest(index_copy, **{"model.id": "someone/else"})
    store = load_store(index_copy)
    with pytest.raises(ModelMismatchError, match="someone/else"):
        store.check_model(embedder.model_id, embedder.dim, embedder.probe())


def test_dim_mismatch_is_detected_at_load(index_copy):
    _edit_manifest(index_copy, **{"model.dim": 768})
    with pytest.raises(IndexCorruptError, match="expected"):
        load_store(index_copy)


def test_probe_mismatch_means_another_model(index_copy, embedder):
    probe = (-embedder.probe()).tolist()
    _edit_manifest(index_copy, probe=probe)
    with pytest.raises(ModelMismatchError, match="probe"):
        load_store(index_copy).check_model(embedder.model_id, embedder.dim, embedder.probe())


def test_no_pickle_anywhere(built_index):
    gen = current_generation(built_index)
    manifest = load_store(built_index).manifest
    assert sorted(p.name for p in gen.iterdir()) == sorted([*manifest.files, "manifest.json"])
    for name in ("chunk_vectors.npy", "sentence_vectors.npy", "heading_vectors.npy"):
        arr = np.load(gen / name, allow_pickle=False)  # raises on an object (pickled) array
        assert arr.dtype == np.float32 and not arr.dtype.hasobject
    rows = [json.loads(line) for line in (gen / "chunks.jsonl").read_text().splitlines()]
    assert len(rows) == manifest.n_chunks and all(isinstance(r, dict) and r["chunk_id"] for r in rows)


def test_old_generations_are_pruned(index_copy, sources_dir, embedder, tmp_path):
    src = tmp_path / "sources"
    shutil.copytree(sources_dir, src)
    note = sorted(src.glob("*.md"))[0]
    for n in range(2):  # the session build plus two more: three generations written
        # a changed paragraph makes a new generation while re-embedding only that paragraph
        note.write_text(note.read_text(encoding="utf-8") + f"\n\nA paragraph added for generation {n}.\n", encoding="utf-8")
        report = build_index(src, index_copy, embedder, progress=False, query_texts=FIXED)
        assert report.changed
    gens = sorted(p.name for p in index_copy.glob("gen-*"))
    assert len(gens) <= 2 and current_generation(index_copy).name in gens
    assert not list(index_copy.glob(".tmp-*"))


def test_manifest_records_sources_dir_and_a_sha256_per_file(built_index, sources_dir):
    manifest = load_store(built_index).manifest
    gen = current_generation(built_index)
    assert manifest.sources_dir == str(sources_dir.resolve())
    assert set(manifest.sha256) == set(manifest.files) == {p.name for p in gen.iterdir()} - {"manifest.json"}
    for name, sha in manifest.sha256.items():
        assert hashlib.sha256((gen / name).read_bytes()).hexdigest() == sha


def test_index_whose_sources_dir_is_gone_is_used_as_built(index_copy, sources_dir, embedder, tmp_path):
    src = tmp_path / "sources"
    shutil.copytree(sources_dir, src)
    build_index(src, index_copy, embedder, progress=False, query_texts=FIXED)
    shutil.rmtree(src)
    assert staleness(index_copy) is None
    assert recorded_sources_dir(index_copy) == src.resolve()


def _swap_same_size(data: bytes, a: bytes, b: bytes) -> bytes:
    assert len(a) == len(b) and a in data
    return data.replace(a, b, 1)


def test_same_size_chunk_text_swap_is_caught(index_copy):
    path = current_generation(index_copy) / "chunks.jsonl"
    path.write_bytes(_swap_same_size(path.read_bytes(), b"TPU", b"GPU"))
    with pytest.raises(IndexCorruptError, match="chunks.jsonl was altered"):
        load_store(index_copy)


@pytest.mark.parametrize("victim", ["chunk_vectors.npy", "sentence_vectors.npy", "heading_vectors.npy", "index.faiss"])
def test_flipped_vector_bytes_are_caught(index_copy, victim):
    path = current_generation(index_copy) / victim
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0x01
    path.write_bytes(bytes(raw))
    with pytest.raises(IndexCorruptError, match=f"{victim} was altered") as info:
        load_store(index_copy)
    assert "hwbot index --rebuild" in info.value.one_line()


def _rehash(index_dir, name):
    """Make the manifest agree with a tampered file, as a careful attacker would."""
    gen = current_generation(index_dir)
    data = (gen / name).read_bytes()
    manifest = json.loads((gen / "manifest.json").read_text())
    manifest["files"][name] = len(data)
    manifest["sha256"][name] = hashlib.sha256(data).hexdigest()
    (gen / "manifest.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize("offset, value", [(4, struct.pack("<i", 1 << 30)), (8, struct.pack("<q", 1 << 40))], ids=["dim", "ntotal"])
def test_faiss_header_is_checked_before_faiss_reads_it(index_copy, offset, value):
    # A huge dimension or count in the header made FAISS allocate gigabytes before failing.
    path = current_generation(index_copy) / "index.faiss"
    raw = bytearray(path.read_bytes())
    raw[offset : offset + len(value)] = value
    path.write_bytes(bytes(raw))
    _rehash(index_copy, "index.faiss")
    with pytest.raises(IndexCorruptError, match="header says"):
        load_store(index_copy)


def test_faiss_file_too_small_for_its_vectors(index_copy):
    path = current_generation(index_copy) / "index.faiss"
    path.write_bytes(path.read_bytes()[:64])
    _rehash(index_copy, "index.faiss")
    with pytest.raises(IndexCorruptError, match="too small"):
        load_store(index_copy)


def test_npy_with_a_lying_header_is_caught_without_reading_past_it(index_copy):
    path = current_generation(index_copy) / "heading_vectors.npy"
    raw = path.read_bytes()
    path.write_bytes(raw + b"\0" * 1536)  # four more rows' worth of bytes than the header says
    _rehash(index_copy, "heading_vectors.npy")
    with pytest.raises(IndexCorruptError, match="data bytes"):
        load_store(index_copy)


def test_the_answering_sides_fixed_texts_are_embedded_at_index_time(built_index, qa, embedder):
    """A cold engine reads the intent prototypes and FAQ forms from the index instead of encoding them."""
    store = load_store(built_index)
    assert store.query_texts == FIXED and store.manifest.n_query_texts == len(FIXED) > 50
    assert store.query_text_vectors.shape == (len(FIXED), 384)
    sample = [0, len(FIXED) // 2, len(FIXED) - 1]
    fresh = embedder.encode([FIXED[i] for i in sample])
    assert np.allclose(store.query_text_vectors[sample], fresh, atol=1e-5)
    assert qa.fixed_texts.encoded == 0  # the engine over the session index encoded none of them


def test_edited_fixed_texts_make_the_index_stale_and_only_the_new_one_is_embedded(index_copy, sources_dir, embedder):
    edited = FIXED[:-1] + ["how do the notes define a tpu pod slice for a team like ours"]
    assert staleness(index_copy, sources_dir) is None  # not judged when the caller does not say
    from indexer.freshness import IndexStatus

    assert IndexStatus.read(index_copy).staleness(sources_dir, query_texts=FIXED) is None
    assert IndexStatus.read(index_copy).staleness(sources_dir, query_texts=edited) == "the answering side's fixed texts changed"
    report = build_index(sources_dir, index_copy, embedder, progress=False, query_texts=edited)
    assert report.changed and report.embedded == 1
    assert load_store(index_copy).query_texts == edited


def test_an_engine_over_an_index_without_fixed_texts_encodes_them_itself(index_copy, sources_dir, embedder):
    from knowledge.qa.service import QAEngine

    build_index(sources_dir, index_copy, embedder, progress=False)  # as an older hwbot built it
    assert load_store(index_copy).query_texts == []
    engine = QAEngine(load_store(index_copy), embedder)
    assert engine.fixed_texts.encoded > 50
    assert engine.ask("What is a TPU?").citations


def test_altered_fixed_text_vectors_are_caught(index_copy):
    path = current_generation(index_copy) / "query_text_vectors.npy"
    raw = bytearray(path.read_bytes())
    raw[-3] ^= 0x10
    path.write_bytes(bytes(raw))
    with pytest.raises(IndexCorruptError, match="query_text_vectors.npy"):
        load_store(index_copy)


def test_loading_a_flat_store_reads_no_faiss_until_asked_and_still_checks_its_file(index_copy):
    """A flat index is searched as one matrix product, so loading it imports no FAISS (a tenth of a
    cold ask); a changed index.faiss is refused at load all the same, before FAISS reads it."""
    import subprocess
    import sys

    script = ("import sys; from pathlib import Path; from indexer.ondisk import load_store; "
              f"s = load_store(Path({str(index_copy)!r})); print('faiss' in sys.modules, s.index.ntotal == len(s.chunks))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"], out.stderr
    gen = current_generation(index_copy)
    assert gen is not None
    data = bytearray((gen / "index.faiss").read_bytes())
    data[-1] ^= 0xFF
    (gen / "index.faiss").write_bytes(bytes(data))
    with pytest.raises(IndexCorruptError):
        load_store(index_copy)

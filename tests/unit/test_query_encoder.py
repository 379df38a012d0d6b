"""The ONNX query encoder: same vectors as sentence-transformers, and a noted fallback when it can't be used.

Everything runs on the real model, the real export made by ``built_index`` and the real
index. The refusals are driven by editing a private copy's manifest or by pointing it
at a real but different ONNX model.
"""

from __future__ import annotations

import numpy as np
import pytest

from indexer.embedder import Embedder
from indexer.ondisk import Store, load_store
from indexer.onnx_export import MIN_PROBE_COSINE, PROBE_TEXTS
from indexer.query_encoder import (
    FALLBACK_NOTICE,
    OnnxQueryEncoder,
    PrecomputedQueries,
    open_query_encoder,
)
from tests.harness.onnx_models import write_wrong_model

TEXTS = [
    "Why are GPUs the default accelerator?",
    "tpu",
    "What does XLA need from my training loop, and how long will a team spend tuning it before it pays off?",
    # Over 256 tokens: truncation must happen where sentence-transformers truncates, not at the file's 128.
    " ".join(["Pods of TPU chips are linked by a fast interconnect for very large training runs."] * 40),
]


@pytest.fixture(scope="module")
def store(built_index) -> Store:  # type: ignore[no-untyped-def]
    return load_store(built_index)


def _with_encoder(store: Store, **changes: object) -> Store:
    assert store.manifest.encoder is not None
    encoder = store.manifest.encoder.model_copy(update=changes)
    return store.model_copy(update={"manifest": store.manifest.model_copy(update={"encoder": encoder})})


def _open(store: Store) -> tuple[object, list[str]]:
    lines: list[str] = []
    return open_query_encoder(store, notify=lines.append), lines


def test_manifest_records_the_export(store: Store) -> None:
    rec = store.manifest.encoder
    assert rec is not None
    assert rec.opset == 17 and "dynamo=False" in rec.exporter and len(rec.sha256) == 64
    assert rec.probe_texts == len(PROBE_TEXTS) and rec.probe_min_cosine >= MIN_PROBE_COSINE


def test_onnx_vectors_match_sentence_transformers(store: Store, embedder: Embedder) -> None:
    encoder, lines = _open(store)
    assert isinstance(encoder, OnnxQueryEncoder) and lines == []
    for batch in ([t] for t in TEXTS):  # one at a time, as ask encodes
        onnx, st = encoder.encode(batch), embedder.encode(batch, progress=False)
        assert float(np.sum(onnx * st)) >= MIN_PROBE_COSINE
    together = encoder.encode(TEXTS)  # padded to the longest, as a batch is
    cosines = np.sum(together * embedder.encode(TEXTS, progress=False), axis=1)
    assert together.shape == (len(TEXTS), 384) and together.dtype == np.float32
    assert cosines.min() >= MIN_PROBE_COSINE
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize(
    "changes,reason",
    [
        ({"path": "/nonexistent/model.onnx"}, "is missing"),
        ({"size": 123}, "size differs"),
        ({"probe_min_cosine": 0.98}, "cosine 0.980000 only"),
    ],
    ids=["missing", "altered", "disagreed-at-build"],
)
def test_unusable_export_falls_back_with_one_line(store: Store, changes: dict[str, object], reason: str) -> None:
    encoder, lines = _open(_with_encoder(store, **changes))
    assert isinstance(encoder, Embedder)
    assert len(lines) == 1 and "\n" not in lines[0]
    assert lines[0].startswith(FALLBACK_NOTICE) and reason in lines[0] and "hwbot index --rebuild" in lines[0]


def test_index_without_an_export_record_falls_back(store: Store) -> None:
    legacy = store.model_copy(update={"manifest": store.manifest.model_copy(update={"encoder": None})})
    encoder, lines = _open(legacy)
    assert isinstance(encoder, Embedder) and len(lines) == 1 and "not recorded" in lines[0]


def test_another_model_is_refused_by_the_probe(store: Store, tmp_path) -> None:  # type: ignore[no-untyped-def]
    wrong = write_wrong_model(tmp_path / "wrong.onnx")
    encoder, lines = _open(_with_encoder(store, path=str(wrong), size=wrong.stat().st_size))
    assert isinstance(encoder, Embedder)
    assert len(lines) == 1 and "mismatched model" in lines[0]


def test_a_file_onnxruntime_cannot_load_is_refused(store: Store, tmp_path) -> None:  # type: ignore[no-untyped-def]
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not an onnx model" * 100)
    encoder, lines = _open(_with_encoder(store, path=str(junk), size=junk.stat().st_size))
    assert isinstance(encoder, Embedder)
    assert len(lines) == 1 and "cannot be loaded" in lines[0]


def test_precomputed_queries_serve_known_texts_and_delegate_the_rest(store: Store) -> None:
    encoder, _ = _open(store)
    assert isinstance(encoder, OnnxQueryEncoder)
    pre = PrecomputedQueries(encoder, TEXTS[:2])
    assert np.array_equal(pre.encode_one(TEXTS[0]), pre.encode(TEXTS[:2])[0])
    other = pre.encode_one("something never precomputed")
    assert float(np.dot(other, encoder.encode_one("something never precomputed"))) > 0.99999


def test_ask_many_gives_what_ask_gives(qa) -> None:  # type: ignore[no-untyped-def]
    questions = ["What is a TPU?", "\x00\x01", "How do I cook pasta?", "Why would a TPU sit idle?"]
    many = list(qa.ask_many(questions, batch_size=3))
    assert many[1] is None  # empty after hygiene: ask would raise
    for question, answer in zip(questions, many):
        if answer is not None:
            assert answer.to_contract() == qa.ask(question).to_contract()


def test_a_prefetched_session_is_the_one_the_encoder_uses(built_index, store: Store) -> None:  # type: ignore[no-untyped-def]
    from indexer import onnx_sessions

    onnx_sessions._sessions.clear()  # as in a fresh process
    onnx_sessions.prefetch_query_encoder(built_index)
    assert store.manifest.encoder is not None
    assert store.manifest.encoder.path in onnx_sessions._prefetched
    encoder, lines = _open(store)
    assert isinstance(encoder, OnnxQueryEncoder) and lines == []
    assert onnx_sessions._prefetched == {}  # taken, not loaded twice


def test_prefetch_without_an_index_does_nothing(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from indexer import onnx_sessions

    onnx_sessions.prefetch_query_encoder(tmp_path / "no-index")
    assert onnx_sessions._prefetched == {}


def test_each_export_has_one_session_per_process(built_index, store: Store) -> None:  # type: ignore[no-untyped-def]
    """The answer path and the learned extractor encode with different exports (the extractor's has
    fine-tuned top layers); each is one session (one copy of the weights) per process however often
    it is opened, and a prefetch after the query encoder was built starts nothing."""
    from indexer import onnx_sessions
    from knowledge.index import clause_encoder

    first, _ = _open(store)
    second, third = clause_encoder(built_index), clause_encoder(built_index)
    assert isinstance(first, OnnxQueryEncoder) and isinstance(second, OnnxQueryEncoder) and isinstance(third, OnnxQueryEncoder)
    assert second._session is third._session and first._session is not second._session
    onnx_sessions.prefetch_query_encoder(built_index)
    assert onnx_sessions._prefetched == {}
    text = ["why would a TPU sit idle?"]
    assert float(first.encode(text)[0] @ second.encode(text)[0]) < 0.9999  # not the same model


def test_the_optimized_graph_is_kept_beside_the_export_and_answers_the_same(store: Store, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import shutil

    import onnxruntime as ort

    from indexer.ort_graph import build_session, optimized_path

    assert store.manifest.encoder is not None
    export = tmp_path / "model.onnx"
    shutil.copyfile(store.manifest.encoder.path, export)

    def options() -> ort.SessionOptions:
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        return opts

    ids = np.array([[101, 2054, 2515, 1056, 14289, 3233, 2005, 1029, 102]], dtype=np.int64)
    plain = ort.InferenceSession(str(export), options(), providers=["CPUExecutionProvider"])
    feed = {i.name: {"input_ids": ids, "attention_mask": np.ones_like(ids)}.get(i.name, np.zeros_like(ids))
            for i in plain.get_inputs()}
    expected = plain.run(None, feed)[0]
    saved = optimized_path(export, ort.__version__)
    first = build_session(str(export), options)  # optimizes and writes the graph
    assert saved.exists() and saved.stat().st_size > 0
    second = build_session(str(export), options)  # starts from it
    assert np.array_equal(first.run(None, feed)[0], expected)
    assert np.array_equal(second.run(None, feed)[0], expected)
    saved.write_bytes(b"torn" * 10)  # a torn file is rebuilt, never served
    third = build_session(str(export), options)
    assert np.array_equal(third.run(None, feed)[0], expected)
    assert ort.InferenceSession(str(saved), options(), providers=["CPUExecutionProvider"]) is not None

"""Session-wide fixtures: the real model (loaded once), a real built index, and a network guard.

Tests never mock the embedder or FAISS. The index is built once per session into a
temporary directory from the shipped sources (once per run under pytest-xdist: ``make test``
runs two workers, one per core); tests that mutate an index copy it first.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
if os.environ.get("PYTEST_XDIST_WORKER"):
    # Two workers on two cores: a worker whose torch or BLAS also spins two threads makes the
    # pair oversubscribe the machine (the gate's refit took 4x as long). One thread each, and
    # every process a test starts inherits it.
    for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

REPO = Path(__file__).resolve().parent.parent


_GUARD_DIR = Path(__file__).resolve().parent / "harness" / "netguard"
# Every subprocess a test starts (the real `hwbot`, servers) loads the same guard.
os.environ["HWBOT_NETGUARD"] = "1"
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(_GUARD_DIR), os.environ.get("PYTHONPATH", "")) if p)


def _run_shared_dir(tmp_path_factory: pytest.TempPathFactory) -> Path | None:
    """Under pytest-xdist, a directory every worker of this run shares (else ``None``).

    Each worker has its own base temp directory inside one per-run directory; the model's
    export and the session index are built once there, not once per worker.
    """
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return None
    return tmp_path_factory.getbasetemp().parent


@pytest.fixture(autouse=True, scope="session")
def _network_guard():
    """Fail the suite on any connection to a non-loopback address (in this process)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("hwbot_netguard", _GUARD_DIR / "sitecustomize.py")
    guard = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(guard)  # HWBOT_NETGUARD=1 makes this install the guard
    yield


@pytest.fixture(autouse=True, scope="session")
def model_cache(tmp_path_factory) -> Path:
    """A per-session model cache: the ONNX export is made once (by ``built_index``) and shared.

    Set in the environment, so every ``hwbot`` subprocess finds the same export and no
    test writes into the user's own cache.
    """
    shared = _run_shared_dir(tmp_path_factory)
    if shared is None:
        cache = tmp_path_factory.mktemp("model-cache")
    else:
        cache = shared / "model-cache"
        cache.mkdir(exist_ok=True)
    os.environ["HWBOT_MODEL_CACHE_DIR"] = str(cache)
    return cache


@pytest.fixture(scope="session")
def embedder():
    """The real all-MiniLM-L6-v2, loaded once for the whole session."""
    from indexer.embedder import Embedder

    emb = Embedder()
    emb.encode_one("warm up")
    return emb


@pytest.fixture(scope="session")
def sources_dir() -> Path:
    from knowledge.paths import SOURCES_DIR

    return SOURCES_DIR


@pytest.fixture(scope="session")
def built_index(tmp_path_factory, embedder, sources_dir, model_cache) -> Path:
    """A real index of the shipped sources, built once, with its ONNX query encoder, the
    answering side's fixed texts and the extractor's fine-tuned encoder exported (as ``hwbot
    index`` builds it: a test run alone must not pay, or see, that export). Treat as read-only."""
    from indexer.build import build_index
    from knowledge.index import clause_encoder
    from knowledge.qa.fixed_texts import query_side_texts

    def build(index_dir: Path) -> None:
        build_index(sources_dir, index_dir, embedder, progress=False, encoder_cache=model_cache, query_texts=query_side_texts())
        clause_encoder(index_dir, notify=lambda line: None)

    shared = _run_shared_dir(tmp_path_factory)
    if shared is None:
        index_dir = tmp_path_factory.mktemp("index") / "index"
        build(index_dir)
        return index_dir
    # Under xdist the first worker builds it and the others wait for it: one build per run.
    import torch
    from filelock import FileLock

    index_dir = shared / "index"
    with FileLock(str(shared / "index.lock")):
        if not (shared / "index.built").exists():
            # the other workers wait on the lock meanwhile: the builder may use every core
            before = torch.get_num_threads()
            torch.set_num_threads(os.cpu_count() or 1)
            try:
                build(index_dir)
            finally:
                torch.set_num_threads(before)
            (shared / "index.built").touch()
    return index_dir


@pytest.fixture
def index_copy(built_index, tmp_path) -> Path:
    """A private copy of the session index, for tests that corrupt or rebuild it."""
    dst = tmp_path / "index"
    shutil.copytree(built_index, dst)
    return dst


@pytest.fixture(scope="session")
def qa(built_index, sources_dir):
    """The shared question-answering engine over the session index (loaded once), encoding
    questions as users' engines do: on the index's ONNX export (``test_onnx_parity`` holds the
    sentence-transformers path to the same answers). It also halves what encoding costs the
    suite: a question encodes in ~10 ms there, ~22 ms on torch in batches."""
    from indexer.query_encoder import OnnxQueryEncoder
    from knowledge.qa.service import QAEngine

    engine = QAEngine.open(built_index, sources_dir=sources_dir, auto_build=False)
    assert isinstance(engine.embedder, OnnxQueryEncoder), "the session index has no usable ONNX encoder"
    return engine


@pytest.fixture
def hwbot_env(built_index, monkeypatch) -> dict[str, str]:
    """Environment for running the real ``hwbot`` console script against the session index."""
    env = dict(os.environ)
    env["HWBOT_INDEX_DIR"] = str(built_index)
    env["HF_HUB_OFFLINE"] = "1"
    return env

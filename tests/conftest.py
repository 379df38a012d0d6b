"""Session-wide fixtures: the real model (loaded once), a real built index, and a network guard.

Tests never mock the embedder or FAISS. The index is built once per session into a
temporary directory from the shipped sources; tests that mutate an index copy it first.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO = Path(__file__).resolve().parent.parent


_GUARD_DIR = Path(__file__).resolve().parent / "harness" / "netguard"
# Every subprocess a test starts (the real `hwbot`, servers) loads the same guard.
os.environ["HWBOT_NETGUARD"] = "1"
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(_GUARD_DIR), os.environ.get("PYTHONPATH", "")) if p)


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
    cache = tmp_path_factory.mktemp("model-cache")
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

    index_dir = tmp_path_factory.mktemp("index") / "index"
    build_index(sources_dir, index_dir, embedder, progress=False, encoder_cache=model_cache, query_texts=query_side_texts())
    clause_encoder(index_dir, notify=lambda line: None)
    return index_dir


@pytest.fixture
def index_copy(built_index, tmp_path) -> Path:
    """A private copy of the session index, for tests that corrupt or rebuild it."""
    dst = tmp_path / "index"
    shutil.copytree(built_index, dst)
    return dst


@pytest.fixture(scope="session")
def qa(built_index, embedder, sources_dir):
    """The shared question-answering engine over the session index (loaded once)."""
    from knowledge.qa.service import QAEngine

    return QAEngine.open(built_index, sources_dir=sources_dir, embedder=embedder, auto_build=False)


@pytest.fixture
def hwbot_env(built_index, monkeypatch) -> dict[str, str]:
    """Environment for running the real ``hwbot`` console script against the session index."""
    env = dict(os.environ)
    env["HWBOT_INDEX_DIR"] = str(built_index)
    env["HF_HUB_OFFLINE"] = "1"
    return env

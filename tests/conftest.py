"""Session-wide fixtures: the real model (loaded once), a real built index, and a network guard.

Tests never mock the embedder or FAISS. The index is built once per session into a
temporary directory from the shipped sources; tests that mutate an index copy it first.
"""

from __future__ import annotations

import ipaddress
import os
import shutil
import socket
from pathlib import Path

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO = Path(__file__).resolve().parent.parent


def _is_loopback(address: object) -> bool:
    if isinstance(address, tuple) and address:
        host = address[0]
    elif isinstance(address, (str, bytes)):
        return True  # AF_UNIX paths
    else:
        return False
    if host in ("localhost", "", None):
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False  # a hostname other than localhost would need DNS: not allowed


@pytest.fixture(autouse=True, scope="session")
def _network_guard():
    """Fail the suite on any connection to a non-loopback address."""
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def guarded_connect(self, address):  # type: ignore[no-untyped-def]
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback(address):
            raise AssertionError(f"network guard: connection to non-loopback address {address!r}")
        return real_connect(self, address)

    def guarded_connect_ex(self, address):  # type: ignore[no-untyped-def]
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback(address):
            raise AssertionError(f"network guard: connection to non-loopback address {address!r}")
        return real_connect_ex(self, address)

    def guarded_getaddrinfo(host, *args, **kwargs):  # type: ignore[no-untyped-def]
        if host not in (None, "localhost") and not _is_loopback((host,)):
            raise AssertionError(f"network guard: name lookup of {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    socket.socket.connect = guarded_connect  # type: ignore[method-assign]
    socket.socket.connect_ex = guarded_connect_ex  # type: ignore[method-assign]
    socket.getaddrinfo = guarded_getaddrinfo  # type: ignore[assignment]
    try:
        yield
    finally:
        socket.socket.connect = real_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = real_connect_ex  # type: ignore[method-assign]
        socket.getaddrinfo = real_getaddrinfo  # type: ignore[assignment]


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
def built_index(tmp_path_factory, embedder, sources_dir) -> Path:
    """A real index of the shipped sources, built once. Treat as read-only."""
    from indexer.build import build_index

    index_dir = tmp_path_factory.mktemp("index") / "index"
    build_index(sources_dir, index_dir, embedder, progress=False)
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
    from knowledge.qa import QAEngine

    return QAEngine.open(built_index, sources_dir=sources_dir, embedder=embedder, auto_build=False)


@pytest.fixture
def hwbot_env(built_index, monkeypatch) -> dict[str, str]:
    """Environment for running the real ``hwbot`` console script against the session index."""
    env = dict(os.environ)
    env["HWBOT_INDEX_DIR"] = str(built_index)
    env["HF_HUB_OFFLINE"] = "1"
    return env

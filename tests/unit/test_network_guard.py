"""The suite's socket guard really blocks non-loopback connections (and allows loopback)."""

from __future__ import annotations

import socket

import pytest


def test_non_loopback_connect_is_refused_before_any_packet():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        with pytest.raises(AssertionError, match="network guard"):
            s.connect(("192.0.2.1", 80))  # TEST-NET-1: never routed; the guard fires first anyway
    finally:
        s.close()


def test_name_lookup_is_refused():
    with pytest.raises(AssertionError, match="network guard"):
        socket.getaddrinfo("huggingface.co", 443)


def test_subprocesses_are_guarded_too():
    """The real `hwbot` runs in subprocesses: they load the guard through sitecustomize."""
    import os
    import subprocess
    import sys

    code = "import socket; s = socket.socket(); s.connect(('192.0.2.1', 80))"
    proc = subprocess.run([sys.executable, "-c", code], env=dict(os.environ), capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert "network guard" in proc.stderr


def test_loopback_connection_really_happened():
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    client = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        assert client.connect_ex(server.getsockname()) == 0
    finally:
        client.close()
        server.close()

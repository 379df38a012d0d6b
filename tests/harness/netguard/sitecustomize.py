"""The test suite's network guard, also loaded into every subprocess the tests start.

Tests run the real ``hwbot`` in subprocesses; a guard patched into the pytest process
alone would not see their sockets. ``tests/conftest.py`` puts this directory on
``PYTHONPATH`` and sets ``HWBOT_NETGUARD=1``, so Python imports this module at start-up
in every child too. Any connection or name lookup other than loopback then fails loudly.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Callable

__all__ = ["install", "is_loopback"]


def is_loopback(address: object) -> bool:
    if isinstance(address, tuple) and address:
        host = address[0]
    else:
        return isinstance(address, (str, bytes))  # AF_UNIX paths are local
    if host in ("localhost", "", None):
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False  # a hostname other than localhost would need DNS: not allowed


def install() -> Callable[[], None]:
    """Patch connect/connect_ex/getaddrinfo; returns a function that undoes it."""
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def check(sock: socket.socket, address: object) -> None:
        if sock.family in (socket.AF_INET, socket.AF_INET6) and not is_loopback(address):
            raise AssertionError(f"network guard: connection to non-loopback address {address!r}")

    def guarded_connect(self, address):  # type: ignore[no-untyped-def]
        check(self, address)
        return real_connect(self, address)

    def guarded_connect_ex(self, address):  # type: ignore[no-untyped-def]
        check(self, address)
        return real_connect_ex(self, address)

    def guarded_getaddrinfo(host, *args, **kwargs):  # type: ignore[no-untyped-def]
        if host not in (None, "localhost") and not is_loopback((host,)):
            raise AssertionError(f"network guard: name lookup of {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    socket.socket.connect = guarded_connect  # type: ignore[method-assign]
    socket.socket.connect_ex = guarded_connect_ex  # type: ignore[method-assign]
    socket.getaddrinfo = guarded_getaddrinfo  # type: ignore[assignment]

    def restore() -> None:
        socket.socket.connect = real_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = real_connect_ex  # type: ignore[method-assign]
        socket.getaddrinfo = real_getaddrinfo  # type: ignore[assignment]

    return restore


if os.environ.get("HWBOT_NETGUARD") == "1":
    install()

"""The few pieces of RFC 6455 the fake Socket Mode endpoint needs (``fake_slack``'s ``/socket``).

Server side only: the handshake's accept key, unmasked final frames out, masked frames in.
slack_sdk sends no fragments, so none are read.
"""

from __future__ import annotations

import base64
import hashlib
import struct
from typing import Any

__all__ = ["accept_key", "frame", "read_frame"]

_WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def frame(opcode: int, payload: bytes) -> bytes:
    """One final, unmasked frame (server to client)."""
    head = bytes([0x80 | opcode])
    size = len(payload)
    if size < 126:
        head += bytes([size])
    elif size < 1 << 16:
        head += bytes([126]) + struct.pack("!H", size)
    else:
        head += bytes([127]) + struct.pack("!Q", size)
    return head + payload


def _read_exact(stream: Any, size: int) -> bytes:
    data = stream.read(size)
    if data is None or len(data) < size:
        raise ConnectionError("socket closed")
    return data


def read_frame(stream: Any) -> tuple[int, bytes]:
    """One client frame (masked, as RFC 6455 requires); fragments are not used by slack_sdk."""
    first, second = _read_exact(stream, 2)
    opcode = first & 0x0F
    size = second & 0x7F
    if size == 126:
        size = struct.unpack("!H", _read_exact(stream, 2))[0]
    elif size == 127:
        size = struct.unpack("!Q", _read_exact(stream, 8))[0]
    mask = _read_exact(stream, 4) if second & 0x80 else b"\0\0\0\0"
    data = _read_exact(stream, size) if size else b""
    return opcode, bytes(b ^ mask[i % 4] for i, b in enumerate(data))


def accept_key(key: str) -> str:
    """The ``Sec-WebSocket-Accept`` answer to a client's ``Sec-WebSocket-Key``."""
    return base64.b64encode(hashlib.sha1((key + _WS_GUID).encode()).digest()).decode()

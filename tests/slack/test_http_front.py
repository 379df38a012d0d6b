"""The HTTP front's body deadline, driven as an ASGI app with a client that trickles bytes.

The end-to-end sweep (tests/slack/test_workers.py) found slow bodies left open now and
then on loaded cores: gunicorn's ``receive()`` waits with ``asyncio.wait_for``, and on
Python 3.11 that swallows a cancellation landing in the same pass as a chunk. The receive
here does exactly that on every cancel, so the race is hit every time, not once in a while.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from bot.slack import front


class _Trickle:
    """An ASGI ``receive`` for a 100 KB body sent a byte every 20 ms that never ends.

    Like gunicorn's receive on 3.11 when a chunk and a cancel meet: the cancel is
    swallowed and the chunk returned.
    """

    def __init__(self) -> None:
        self.swallowed = 0

    async def __call__(self) -> dict[str, Any]:
        try:
            await asyncio.sleep(0.02)
        except asyncio.CancelledError:
            self.swallowed += 1
        return {"type": "http.request", "body": b"a", "more_body": True}


class _Sent:
    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    async def __call__(self, message: dict[str, Any]) -> None:
        self.messages.append(message)


def _scope(length: int) -> dict[str, Any]:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(length).encode())]
    return {"type": "http", "method": "POST", "path": front.EVENTS_PATH, "headers": headers, "query_string": b""}


def test_a_trickled_body_gets_408_and_close_even_when_the_cancel_is_swallowed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(front, "BODY_DEADLINE", 0.3)
    app = front.SlackFront(app=None, signing_secret="s")  # never dispatched: the body never ends
    receive, sent = _Trickle(), _Sent()

    # Without the per-chunk check the call never returns, and a cancel from an outer
    # timeout would be swallowed too: bound it from another thread instead.
    runner = threading.Thread(target=asyncio.run, args=(app(_scope(100_000), receive, sent),), daemon=True)
    runner.start()
    runner.join(timeout=30)
    app.close()
    assert not runner.is_alive(), "the slow body was never cut off"
    assert receive.swallowed >= 1  # the race really happened
    start = sent.messages[0]
    assert start["status"] == 408
    assert (b"connection", b"close") in start["headers"]
    assert sent.messages[1]["body"] == b"request body too slow"


def test_a_body_that_arrives_in_time_is_read_whole() -> None:
    chunks = [b'{"a": ', b"1}"]

    async def receive() -> dict[str, Any]:
        await asyncio.sleep(0.01)
        body = chunks.pop(0)
        return {"type": "http.request", "body": body, "more_body": bool(chunks)}

    async def run() -> bytes | None:
        deadline = asyncio.get_running_loop().time() + 5
        return await front._read_body(receive, deadline)

    assert asyncio.run(run()) == b'{"a": 1}'

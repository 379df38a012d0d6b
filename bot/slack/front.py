"""The HTTP front as an ASGI app: ``GET /healthz`` and checked ``POST /slack/events``.

It runs on an event loop (gunicorn's own asyncio ASGI worker, see :mod:`bot.slack.server`),
so a slow client costs a file descriptor and a few KB, never a thread. What it adds
around Bolt's synchronous ``App.dispatch``:

- **Bounded body reading.** The body must arrive within ``BODY_DEADLINE`` seconds plus
  one second per ``RATE_FLOOR`` bytes announced; a slower body gets 408 and the
  connection is closed. (Headers have their own deadline in the server's protocol.)
- **Checks over raw bytes** (:mod:`bot.slack.gate`): 413 before reading an oversized
  body, 401 for a missing, bad or stale signature, then 400 for a signed body Bolt could
  not parse. One log line per refusal, never a traceback.
- **Dispatch on a thread pool.** Bolt, the listeners' acks and the state store are
  synchronous; they run on ``DISPATCH_THREADS`` threads so the loop keeps accepting.
- **Health.** ``/healthz`` is 200 when the worker is loaded and its state store is
  healthy, else 503 with a one-line reason (for the load balancer).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from slack_bolt import App
from slack_bolt.request import BoltRequest

from bot.slack.gate import MAX_BODY_BYTES, check_signed, check_well_formed
from bot.state import StateUnavailable

__all__ = ["SlackFront", "EVENTS_PATH", "HEALTH_PATH", "BODY_DEADLINE", "RATE_FLOOR", "DISPATCH_THREADS"]

log = logging.getLogger("hwbot.slack.http")

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"
#: Seconds any body may take, plus one second per RATE_FLOOR bytes (a 1 MB body: 25 s).
BODY_DEADLINE = 5.0
RATE_FLOOR = 50_000
#: Threads running Bolt's dispatch (the ack path: parse, middleware, state, ack).
DISPATCH_THREADS = 16

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


class _TooLarge(Exception):
    pass


async def _reply(send: Send, status: int, body: str, content_type: str = "text/plain; charset=utf-8", *, close: bool = False) -> None:
    data = body.encode("utf-8")
    headers = [(b"content-type", content_type.encode()), (b"content-length", str(len(data)).encode())]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


async def _read_body(receive: Receive, deadline: float) -> bytes | None:
    """The whole body by ``deadline`` (loop time), or None if the client went away.

    Why the deadline is checked here as well as by ``asyncio.timeout_at`` around the
    call: gunicorn's ``receive()`` waits with ``asyncio.wait_for``, which on Python 3.11
    swallows a cancellation that lands in the same loop pass as a body chunk (the chunk
    is returned, the cancel is lost). A client trickling a byte at a time hits that pass
    now and then, and the timeout never fired for it: the connection stayed open until
    the whole announced body arrived. The check after each chunk closes that gap.
    """
    loop = asyncio.get_running_loop()
    chunks: list[bytes] = []
    size = 0
    while True:
        if loop.time() >= deadline:
            raise TimeoutError
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise _TooLarge
        chunks.append(chunk)
        if not message.get("more_body"):
            return b"".join(chunks)


class SlackFront:
    """The ASGI application of one worker process."""

    def __init__(self, app: App, signing_secret: str, *, health: Callable[[], str | None] = lambda: None,
                 threads: int = DISPATCH_THREADS) -> None:
        self.app = app
        self.secret = signing_secret.encode("utf-8")
        self.health = health
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="hwbot-http")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return  # no lifespan, no websockets: the worker's hooks do start-up and the drain
        path, method = scope.get("path", ""), scope.get("method", "GET")
        if path == HEALTH_PATH and method in ("GET", "HEAD"):
            reason = self.health()
            await _reply(send, 200 if reason is None else 503, "ok" if reason is None else reason)
            return
        if path != EVENTS_PATH or method != "POST":
            await _reply(send, 404, "not found")
            return
        await self._events(scope, receive, send)

    async def _events(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers: dict[bytes, bytes] = {}
        for name, value in scope.get("headers", []):
            headers.setdefault(bytes(name).lower(), bytes(value))
        try:
            length = int(headers.get(b"content-length", b"0"))
        except ValueError:
            await _reply(send, 400, "bad content-length", close=True)
            return
        if length > MAX_BODY_BYTES:
            await _reply(send, 413, "payload too large", close=True)
            return
        deadline = asyncio.get_running_loop().time() + BODY_DEADLINE + max(length, 0) / RATE_FLOOR
        try:
            async with asyncio.timeout_at(deadline):
                raw = await _read_body(receive, deadline)
        except _TooLarge:
            await _reply(send, 413, "payload too large", close=True)
            return
        except TimeoutError:
            log.debug("closed a connection whose body was too slow (%d bytes announced)", length)
            await _reply(send, 408, "request body too slow", close=True)
            return
        if raw is None:
            return
        refusal = check_signed(self.secret, raw, headers.get(b"x-slack-request-timestamp"), headers.get(b"x-slack-signature"))
        if refusal is not None:
            log.warning("refused a request: %s (%d bytes)", refusal.reason, len(raw))
            await _reply(send, 401, '{"error": "invalid request"}', "application/json")
            return
        refusal = check_well_formed(raw, headers.get(b"content-type", b"").decode("latin-1"))
        if refusal is not None:
            log.warning("refused a request: %s", refusal.reason)
            await _reply(send, 400, "malformed body")
            return
        loop = asyncio.get_running_loop()
        status, out_headers, body = await loop.run_in_executor(self.pool, self._dispatch, raw, scope, headers)
        await send({"type": "http.response.start", "status": status, "headers": out_headers})
        await send({"type": "http.response.body", "body": body})

    def _dispatch(self, raw: bytes, scope: Scope, headers: dict[bytes, bytes]) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        """Bolt's synchronous dispatch (on a pool thread): ``(status, headers, body)``."""
        request = BoltRequest(
            body=raw.decode("utf-8"),
            query=bytes(scope.get("query_string") or b"").decode("latin-1"),
            headers={k.decode("latin-1"): [v.decode("latin-1")] for k, v in headers.items()},
        )
        try:
            response = self.app.dispatch(request)
        except StateUnavailable:  # logged once per outage by the store itself
            data = b"state store unavailable"
            return 503, [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(data)).encode())], data
        except Exception as exc:  # Bolt answers errors itself; this is the last line, one log line, no trace
            log.error("dispatching a request failed: %s", type(exc).__name__)
            data = b"internal error"
            return 500, [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(data)).encode())], data
        data = response.body.encode("utf-8") if isinstance(response.body, str) else bytes(response.body or b"")
        out = [(k.encode("latin-1"), str(v).encode("latin-1")) for k, vs in response.headers.items() for v in vs
               if k.lower() != "content-length"]
        out.append((b"content-length", str(len(data)).encode()))
        return response.status, out, data

    def close(self) -> None:
        self.pool.shutdown(wait=True)

"""The ONNX Runtime sessions of this process: one per export file, built in the background early.

Why a module of its own: a cold ``hwbot ask`` overlaps building its session (~0.2 s in C++,
the GIL released) with importing and loading everything else, so the prefetch must start
before those imports. This module imports only the standard library and
:mod:`indexer.ort_graph` (onnxruntime itself when a prefetch starts); the encoder
(:mod:`indexer.query_encoder`, with the tokenizer) takes the session over later.
"""

from __future__ import annotations

import json
import os
import threading
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from indexer.ort_graph import build_session

__all__ = ["EncoderUnavailable", "SESSION_THREADS", "TELEMETRY_ENV", "prefetch_query_encoder", "prefetch_session", "session_for"]

#: onnxruntime threads per session (see :func:`_new_session`)
SESSION_THREADS = 1


class EncoderUnavailable(Exception):
    """Why the ONNX encoder cannot be used; the message completes the fallback notice."""


#: onnxruntime >= 1.32 ships a 1DS telemetry client that resolves ``mobile.events.data.microsoft.com``
#: from native code a few seconds after a session is created. ``disable_telemetry_events()`` left
#: some of those lookups; this variable, read by the native library, left none (strace, see
#: docs/slack.md). It must be in the environment before the first session is built.
TELEMETRY_ENV = ("ORT_DISABLE_TELEMETRY", "1")


def _onnxruntime() -> Any:
    """onnxruntime, imported with its telemetry switched off first (offline by design: no native network calls)."""
    os.environ[TELEMETRY_ENV[0]] = TELEMETRY_ENV[1]
    import onnxruntime as ort

    return ort


def _new_session(path: str) -> Any:
    ort = _onnxruntime()
    ort.disable_telemetry_events()

    def options() -> Any:
        opts = ort.SessionOptions()
        opts.log_severity_level = 3  # onnxruntime's warnings are not for hwbot's users
        # One thread: hwbot's processes share one core (DESIGN), and on a loaded machine a
        # spinning two-thread pool made a query encode 2x slower than one thread (16 vs 8 ms).
        opts.intra_op_num_threads = SESSION_THREADS
        opts.inter_op_num_threads = SESSION_THREADS
        return opts

    # the graph optimized once and kept beside the export (indexer.ort_graph): ~0.07 s of every cold start
    return build_session(path, options)


_prefetch_lock = threading.Lock()
_prefetched: dict[str, Future[Any]] = {}
#: built sessions, one per export file (keyed with its size and mtime, so a replaced file gets a new one)
_sessions: dict[tuple[str, int, int], Any] = {}
_sessions_lock = threading.Lock()


def _load_into(path: str, future: Future[Any]) -> None:
    try:
        future.set_result(_new_session(path))
    except BaseException as exc:  # handed to whoever takes the session
        future.set_exception(exc)


def prefetch_query_encoder(index_dir: Path) -> None:
    """Start building the ONNX Runtime session of the index's export in a background thread.

    Building it (~0.3 s: reading 90 MB of weights, planning the graph) runs in C++ and
    releases the GIL, so a cold ``hwbot ask`` that calls this first overlaps it with
    importing and loading the rest. Reads only ``CURRENT`` and the manifest's JSON (no
    validation: :func:`open_query_encoder` does that); any problem simply skips the
    prefetch. The thread is not a daemon, so an early exit waits for it, never kills it.
    """
    try:
        name = (index_dir / "CURRENT").read_text(encoding="utf-8").strip()
        record = json.loads((index_dir / name / "manifest.json").read_bytes()).get("encoder") or {}
        path = str(record["path"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return
    prefetch_session(Path(path))


def prefetch_session(model_file: Path) -> None:
    """Start building the session of this ONNX file in the background (see :func:`prefetch_query_encoder`);
    the encoder that opens the same file later takes it over."""
    path = str(model_file)
    with _sessions_lock:
        if any(key[0] == path for key in _sessions):
            return  # built already: the process shares it
    with _prefetch_lock:
        if path in _prefetched:
            return
        future: Future[Any] = Future()
        _prefetched[path] = future
    # onnxruntime (and with it numpy) is imported here, before the thread starts: numpy imported by
    # two threads at once can find its own C module half-initialized ("cannot import name
    # '__cpu_features__'"), failing the import in one thread or the other
    _onnxruntime()

    threading.Thread(target=_load_into, args=(path, future), name="hwbot-onnx-prefetch").start()


def session_for(path: str) -> Any:
    """The process's session for this file: one per export, shared by every encoder on it.

    The answer path and the learned extractor (``recommend --text``, a Slack worker reading a
    team's words) both encode with the same export; two sessions held the 90 MB of weights and
    their arenas twice (a Slack worker grew by ~115 MB once the first team's message was read).
    An ONNX Runtime session may be run from several threads at once. The prefetched session,
    if one was started, becomes the shared one."""
    stat = os.stat(path)
    key = (path, stat.st_size, stat.st_mtime_ns)
    with _sessions_lock:
        with _prefetch_lock:
            future = _prefetched.pop(path, None)
        if key in _sessions:
            return _sessions[key]  # a prefetch started meanwhile is dropped: its thread ends on its own
        session = future.result() if future is not None else _new_session(path)
        _sessions[key] = session
        return session

"""The writers' lock on an index dir, with every way it can fail turned into one line.

Builds from several processes (a CLI, Slack workers, CI) serialize on one file lock per
index dir; readers never take it, because a generation is immutable once ``CURRENT`` names it.
"""

from __future__ import annotations

from pathlib import Path

from common.errors import IndexStoreError

__all__ = ["index_lock"]


class _IndexLock:
    """A file lock on the index dir whose failures are one-line :class:`IndexStoreError` s."""

    def __init__(self, index_dir: Path, timeout: float) -> None:
        try:
            index_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise IndexStoreError(
                f"{index_dir}: cannot use as the index directory ({exc.strerror or exc})",
                hint="set HWBOT_INDEX_DIR to a writable directory",
            ) from None
        # imported here: only writers lock, and a cold question (a reader) never pays for filelock
        from filelock import FileLock

        self._dir = index_dir
        self._timeout = timeout
        self._lock = FileLock(str(index_dir / ".lock"), timeout=timeout)

    def __enter__(self) -> "_IndexLock":
        from filelock import Timeout

        try:
            self._lock.acquire()
        except Timeout:
            raise IndexStoreError(
                f"{self._dir}: another hwbot process has held the index lock for {self._timeout:.0f}s"
            ) from None
        except OSError as exc:
            raise IndexStoreError(f"{self._dir}: cannot lock the index ({exc.strerror or exc})") from None
        return self

    def __exit__(self, *exc: object) -> None:
        self._lock.release()


def index_lock(index_dir: Path, timeout: float = 600) -> _IndexLock:
    """Held by every writer; opening it reports an unusable index dir in one line."""
    return _IndexLock(index_dir, timeout)

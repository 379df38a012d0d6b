"""Reading a user's text file, with every way it can be unusable turned into one line.

Batch question files, docs for the FAQ and workload profiles all arrive as paths typed
by a person: missing, a directory, huge, binary, or in a legacy encoding. The checks
are the same everywhere, so they live here once.
"""

from __future__ import annotations

import stat
from pathlib import Path

from common.errors import InputError

__all__ = ["read_text_file"]


def read_text_file(path: Path, *, expected: str, max_bytes: int, error: type[InputError] = InputError) -> str:
    """The file's text (UTF-8, BOM dropped, newlines normalized) or an ``error`` naming the file.

    ``expected`` completes "expected ..." in messages, e.g. "a text file of questions".
    Emptiness is left to the caller, which knows what "nothing useful" means for it.
    """
    if not path.exists():
        raise error(f"{path}: no such file")
    if path.is_dir():
        raise error(f"{path}: is a directory, expected {expected}")
    try:
        mode = path.stat().st_mode
        if not stat.S_ISREG(mode):
            # A FIFO would block forever and /dev/zero never ends: only regular files are read.
            raise error(f"{path}: not a regular file (a pipe or device), expected {expected}")
        with path.open("rb") as fh:
            raw = fh.read(max_bytes + 1)  # never more than the cap, whatever the file claims
    except OSError as exc:
        raise error(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    if len(raw) > max_bytes:
        raise error(f"{path}: file too large (over {max_bytes} bytes)")
    if b"\x00" in raw:
        raise error(f"{path}: looks binary (NUL byte), expected {expected}")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise error(f"{path}: not UTF-8 (bad byte on line {line})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")

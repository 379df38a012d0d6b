"""Reading a user's text file, with every way it can be unusable turned into one line.

Batch question files, docs for the FAQ, workload profiles and the knowledge sources
all arrive as paths chosen by a person: missing, a directory, a pipe or device, huge,
binary, or in a legacy encoding. The checks are the same everywhere, so they live here
once. Only regular files are opened (a FIFO would block forever, ``/dev/zero`` never
ends), and never more than the cap plus one byte is read, whatever the file claims.
"""

from __future__ import annotations

import stat
import sys
from pathlib import Path

from common.errors import InputError

__all__ = ["read_text_file", "read_capped_bytes", "decode_text", "stderr_line"]


def read_capped_bytes(path: Path, *, expected: str, max_bytes: int, error: type[InputError] = InputError) -> bytes:
    """The raw bytes of a regular file of at most ``max_bytes``, or an ``error`` naming it."""
    if not path.exists():
        raise error(f"{path}: no such file")
    if path.is_dir():
        raise error(f"{path}: is a directory, expected {expected}")
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            raise error(f"{path}: not a regular file (a pipe or device), expected {expected}")
        with path.open("rb") as fh:
            raw = fh.read(max_bytes + 1)
    except OSError as exc:
        raise error(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    if len(raw) > max_bytes:
        raise error(f"{path}: file too large (over {max_bytes} bytes)")
    return raw


def decode_text(path: Path, raw: bytes, *, expected: str, error: type[InputError] = InputError) -> str:
    """UTF-8 text (BOM dropped, newlines normalized to ``\\n``), or an ``error`` naming ``path``."""
    if b"\x00" in raw:
        raise error(f"{path}: looks binary (NUL byte), expected {expected}")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise error(f"{path}: not UTF-8 (bad byte on line {line})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_text_file(path: Path, *, expected: str, max_bytes: int, error: type[InputError] = InputError) -> str:
    """The file's text or an ``error`` naming the file.

    ``expected`` completes "expected ..." in messages, e.g. "a text file of questions".
    Emptiness is left to the caller, which knows what "nothing useful" means for it.
    """
    raw = read_capped_bytes(path, expected=expected, max_bytes=max_bytes, error=error)
    return decode_text(path, raw, expected=expected, error=error)


def stderr_line(line: str) -> None:
    """Say one line to the person at the terminal (a notice, never the answer: that goes to
    stdout, where a pipe or ``--json`` reader expects only the answer), flushed at once so it
    shows before a slow step that follows it."""
    print(line, file=sys.stderr, flush=True)

"""The learned extractor for a process (ONNX encoder + clause heads), opened once, or the rules with a notice.

Every front end that reads a whole message (``recommend --text``, the REPL, Slack) asks
:func:`clause_reader`; it returns ``None`` when the index's ONNX encoder or the committed
heads cannot be used, after one line saying why ("Note: reading your words with the rules
only: ..."), so the user still gets the rule-based reading and is never left guessing.
:func:`understand` is the one call: the shared message reading
(:func:`knowledge.recommend.reading.read_message`: checks, contradictions, implications) with
the rules and then the heads for what the rules left open as its extraction step.

Nothing here imports torch: the encoder is the index's ONNX export (see
:func:`indexer.query_encoder.encoder_for_index_dir`), whose session :func:`prefetch_reader`
starts building in the background, as ``hwbot ask`` does.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from common.settings import HwbotSettings
from common.textio import stderr_line

if TYPE_CHECKING:  # pragma: no cover
    from knowledge.recommend.extraction import Extraction
    from knowledge.recommend.learned.combine import ClauseReader, Mode
    from knowledge.recommend.reading import MessageReading

__all__ = ["READER_NOTICE", "clause_reader", "extractor_for", "lazy_extractor", "prefetch_reader", "understand"]

#: The start of the one stderr line printed when the learned heads cannot be used.
READER_NOTICE = "Note: reading your words with the rules only"

_readers: dict[Path, "ClauseReader | None"] = {}
_lock = threading.Lock()


_log = logging.getLogger(__name__)


def prefetch_reader(settings: HwbotSettings) -> None:
    """Start loading the clause encoder's ONNX session in the background (it overlaps the imports that follow)."""
    from knowledge.index import prefetch_clause_encoder

    prefetch_clause_encoder(settings.index_dir)


def clause_reader(
    settings: HwbotSettings, *, notify: Callable[[str], Any] = stderr_line, fallback: bool = False
) -> "ClauseReader | None":
    """The process's reader for ``settings.index_dir``; ``None`` (after one ``notify`` line) when unusable.

    ``fallback``: without the ONNX export, read on sentence-transformers (the answer path's fallback)."""
    key = Path(settings.index_dir).resolve()
    with _lock:
        if key in _readers:
            return _readers[key]
        reader = _open(key, notify, fallback)
        _readers[key] = reader
        return reader


def _open(index_dir: Path, notify: Callable[[str], Any], fallback: bool = False) -> "ClauseReader | None":
    from knowledge.index import EncoderUnavailable, clause_encoder
    from knowledge.recommend.learned.combine import ClauseReader
    from knowledge.recommend.learned.heads import HeadsUnavailable, load_heads

    try:
        encoder = clause_encoder(index_dir, fallback=fallback, notify=notify)
    except EncoderUnavailable as exc:
        notify(f"{READER_NOTICE}: the ONNX encoder {exc}")
        return None
    try:
        heads = load_heads(model_id=encoder.model_id, probe=encoder.probe())
    except HeadsUnavailable as exc:
        notify(f"{READER_NOTICE}: {exc}")
        return None
    return ClauseReader(encode=lambda texts: encoder.encode(texts, progress=False), heads=heads)


def extractor_for(
    settings: HwbotSettings, mode: "Mode" = "combined", *, notify: "Callable[[str], Any]" = stderr_line,
    fallback: bool = False,
) -> "Callable[[str], Extraction]":
    """The extraction step for ``mode`` (``rules``, ``heads`` or ``combined``), reader opened once.

    ``notify`` hears the one line said when the heads cannot be used (the rules carry on)."""
    from knowledge.recommend.learned.combine import extract_message

    reader = None if mode == "rules" else clause_reader(settings, notify=notify, fallback=fallback)
    return lambda text: extract_message(text, reader, mode)


def lazy_extractor(settings: HwbotSettings, mode: "Mode" = "combined") -> "Callable[[str], Extraction]":
    """:func:`extractor_for`, opened on the first message that needs it.

    The REPL, Slack and ``hwbot ask`` read with the same extractor as ``recommend --text``,
    but a question that never needs the team's situation ("what is a TPU?") must not pay for
    loading the heads: the reader is opened only when the first situational message arrives.
    On these surfaces a reader that cannot open is logged, not printed: the answer path has
    already told the user about the encoder it fell back to, and one notice is enough.
    """
    opened: list[Callable[[str], Extraction]] = []

    def extract(text: str) -> "Extraction":
        if not opened:
            opened.append(extractor_for(settings, mode, notify=_log.info, fallback=True))
        return opened[0](text)

    return extract


def understand(text: str, settings: HwbotSettings, mode: "Mode" = "combined") -> "MessageReading":
    """A whole message read by the shared reading step, with the rules and (when available) the heads."""
    from knowledge.recommend.reading import read_message

    return read_message(text, extract=extractor_for(settings, mode))

"""The question engines of this process, one per index dir, opened once and cached.

Every front end (CLI, REPL, Slack, FAQ) calls :func:`get_engine`, so a process loads the
model, the index and BM25 once per index directory, however many questions it answers.
Opening is ``knowledge``'s business (``QAEngine.open``, which has ``indexer.lifecycle``
build, update or heal the index first); this module only caches what it opened. Paths
come from the one :class:`~common.settings.HwbotSettings` that ``bot.cli`` builds.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from common.settings import HwbotSettings

if TYPE_CHECKING:  # pragma: no cover
    from knowledge.qa.service import QAEngine

__all__ = ["get_engine"]

_engines: dict[Path, "QAEngine"] = {}
_lock = threading.Lock()


def get_engine(settings: HwbotSettings, *, index_dir: Path | None = None, progress: bool | None = None) -> "QAEngine":
    """The shared engine for ``index_dir`` (default ``settings.index_dir``), opened on first use."""
    from knowledge.qa.service import QAEngine

    key = Path(index_dir or settings.index_dir).resolve()
    with _lock:
        engine = _engines.get(key)
        if engine is None:
            engine = QAEngine.open(
                key, sources_dir=settings.sources_dir, progress=progress, encoder_cache=settings.model_cache_dir,
                max_question_chars=settings.max_question_chars,
            )
            _engines[key] = engine
        return engine

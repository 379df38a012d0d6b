"""The notes' index as the front ends see it: update it, and start loading its query encoder early.

``bot`` never imports ``indexer``: it asks here (and ``knowledge.qa.service.QAEngine.open``
for an engine), and this module hands the work to :mod:`indexer.lifecycle`, the one owner
of freshness, builds, healing and the recorded sources, with the shipped notes as the
default. It imports nothing heavy at module level, so calling :func:`prefetch_encoder`
first lets the ONNX session load while the rest of a command imports.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from indexer.onnx_sessions import EncoderUnavailable
from knowledge.paths import SOURCES_DIR

if TYPE_CHECKING:  # pragma: no cover
    from indexer.build import BuildReport
    from indexer.query_encoder import QueryEncoder

__all__ = ["update_index", "prefetch_encoder", "prefetch_clause_encoder", "clause_encoder", "EncoderUnavailable"]


def update_index(
    index_dir: Path,
    sources: Path | None = None,
    *,
    rebuild: bool = False,
    only_if_stale: bool = False,
    progress: bool | None = None,
    encoder_cache: Path | None = None,
) -> "BuildReport | None":
    """Build or update the index from ``sources`` (else the recorded notes, else the shipped ones).

    None when ``only_if_stale`` and the index is already fresh.
    """
    from indexer.lifecycle import update_index as _update
    from knowledge.qa.fixed_texts import query_side_texts

    report = _update(
        index_dir, sources, default_sources=SOURCES_DIR, rebuild=rebuild, only_if_stale=only_if_stale, progress=progress,
        encoder_cache=encoder_cache, query_texts=query_side_texts(),
    )
    # the extractor's encoder is exported on the build path too, so no later reader waits for it
    try:
        clause_encoder(index_dir)
    except EncoderUnavailable:
        pass  # its reader says why, once, when a message needs it; the index itself is built
    return report


def prefetch_encoder(index_dir: Path) -> None:
    """Start loading the index's ONNX query encoder in the background (cold-start overlap)."""
    from indexer.onnx_sessions import prefetch_query_encoder

    prefetch_query_encoder(index_dir)


def prefetch_clause_encoder(index_dir: Path) -> None:
    """Start loading the learned extractor's encoder (:func:`clause_encoder`) in the background."""
    from indexer.tuned_encoder import prefetch_tuned_encoder
    from knowledge.recommend.learned.heads import HEADS_DIR, OVERLAY_FILE

    prefetch_tuned_encoder(index_dir, HEADS_DIR / OVERLAY_FILE)


def clause_encoder(
    index_dir: Path, *, fallback: bool = False, export: bool = True, notify: "Callable[[str], Any] | None" = None,
) -> "QueryEncoder":
    """What the learned extractor embeds clauses with: the index's model with the extractor's
    fine-tuned top layers, on ONNX (exported once per version beside the index's query encoder,
    unless ``export`` is off; ``notify`` hears the one line said before that export). Raises :class:`EncoderUnavailable`, unless ``fallback``: then the
    same tuned model on sentence-transformers, as the answer path falls back, so a process reads
    a team's words the same way whichever encoder it ended up with."""
    from indexer.tuned_encoder import tuned_encoder_for_index_dir
    from knowledge.recommend.learned.heads import HEADS_DIR, OVERLAY_FILE

    try:
        return tuned_encoder_for_index_dir(index_dir, HEADS_DIR / OVERLAY_FILE, export=export, notify=notify)
    except EncoderUnavailable:
        if not fallback:
            raise
        from indexer.embedder import Embedder

        return Embedder(overlay=HEADS_DIR / OVERLAY_FILE)

"""The learned extractor's encoder: the shipped model with its fine-tuned top layers, on ONNX.

The extractor fine-tunes the top layers of the same model the index embeds with, and ships
only those layers (``overlay``, owned by ``knowledge``). Its ONNX export lives beside the
query encoder's, in the per-user model cache the index records, one slot per overlay
content: the first reader after a new overlay exports it once (torch is there on the build
path), every later one opens the file as cheaply as the query encoder.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from common.textio import stderr_line
from indexer.query_encoder import EncoderUnavailable, OnnxQueryEncoder, prefetch_session

__all__ = ["tuned_encoder_for_index_dir", "prefetch_tuned_encoder", "PREPARING"]

#: The one line said before the (once per overlay) export.
PREPARING = "Preparing the learned extractor's encoder (once per version; about 15 s)..."


def _cache_and_dim(index_dir: Path) -> tuple[Path, int]:
    try:
        name = (index_dir / "CURRENT").read_text(encoding="utf-8").strip()
        manifest = json.loads((index_dir / name / "manifest.json").read_bytes())
        # the query encoder's file sits in <cache>/<slot>/model.onnx: the tuned slot is its sibling
        return Path(manifest["encoder"]["path"]).parent.parent, int(manifest["model"]["dim"])
    except (OSError, ValueError, KeyError, TypeError):
        raise EncoderUnavailable(f"is not recorded in an index at {index_dir} (run 'hwbot index')") from None


def _cached(slot: Path) -> Path | None:
    model, record = slot / "model.onnx", slot / "export.json"
    try:
        size = json.loads(record.read_text(encoding="utf-8")).get("size")
        return model if size is not None and model.stat().st_size == int(size) else None
    except (OSError, ValueError, TypeError):
        return None


def tuned_encoder_for_index_dir(
    index_dir: Path, overlay: Path, *, export: bool = True, notify: Callable[[str], Any] | None = None,
) -> OnnxQueryEncoder:
    """The tuned encoder for ``overlay``, exported first when the cache lacks it (unless ``export`` is off).

    ``notify`` (default: stderr) hears the one line said before an export. Raises
    :class:`EncoderUnavailable` with the reason (no index, no overlay, a failed export).
    """
    from indexer.onnx_export import tuned_slot

    cache, dim = _cache_and_dim(index_dir)
    if not overlay.is_file():
        raise EncoderUnavailable(f"has no fine-tuned layers to load ({overlay.name} is missing)")
    slot = tuned_slot(cache, overlay)
    model = _cached(slot)
    if model is None:
        if not export:
            raise EncoderUnavailable("with the fine-tuned layers is not exported yet (run 'hwbot index')")
        (notify or stderr_line)(PREPARING)
        from common.errors import HwbotError
        from indexer.onnx_export import export_tuned_encoder

        try:
            model = export_tuned_encoder(cache, overlay)
        except (HwbotError, OSError) as exc:
            raise EncoderUnavailable(f"with the fine-tuned layers could not be exported ({exc})") from None
    return OnnxQueryEncoder(model, dim=dim)


def prefetch_tuned_encoder(index_dir: Path, overlay: Path) -> None:
    """Start loading the tuned encoder's session in the background when its export is cached.

    ``recommend --text`` reads clauses with this encoder, not the index's query encoder: prefetching
    that one instead left this session (~0.2 s) on the main thread. Nothing is exported here; any
    problem skips the prefetch and :func:`tuned_encoder_for_index_dir` says why later.
    """
    from indexer.onnx_export import tuned_slot

    try:
        cache, _ = _cache_and_dim(index_dir)
        model = _cached(tuned_slot(cache, overlay)) if overlay.is_file() else None
    except (EncoderUnavailable, OSError):
        return
    if model is not None:
        prefetch_session(model)

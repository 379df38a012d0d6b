"""The ONNX export's graph, optimized once and kept beside it, so a cold start does not redo it.

Why: building an onnxruntime session optimizes the graph first (constant folding, node fusions,
layout), about 0.06-0.09 s of the ~0.18 s a session takes on these machines, on every start of
every process (``hwbot ask``, a Slack worker). The result does not change while the export and
onnxruntime do not, so it is computed once, when the export is first opened (``hwbot index``
opens it to check the probe), written beside the export, and later sessions start from it.

The graph is saved at the *extended* level, which onnxruntime documents as portable; the
machine-specific layout passes (the *all* level) still run when a session is built from it,
so a session answers exactly as one built from the export (tests/unit/test_query_encoder.py).
A saved graph that cannot be loaded is deleted and rebuilt; a cache that cannot be written
only costs the old start-up time.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["optimized_path", "build_session"]


def optimized_path(export: Path, ort_version: str) -> Path:
    """Where the optimized graph of ``export`` lives for this onnxruntime version."""
    return export.with_name(f"{export.stem}.optimized-ort{ort_version}{export.suffix}")


def build_session(export: str, options: Callable[[], Any]) -> Any:
    """A session for ``export``, started from its saved optimized graph when there is one.

    ``options`` makes a fresh ``SessionOptions`` (threads, logging) for each session built here.
    """
    import onnxruntime as ort

    source = Path(export)
    saved = optimized_path(source, ort.__version__)
    with contextlib.suppress(OSError):
        if saved.stat().st_mtime_ns >= source.stat().st_mtime_ns:
            try:
                return ort.InferenceSession(str(saved), options(), providers=["CPUExecutionProvider"])
            except Exception:  # a torn or foreign file: rebuilt below from the export
                saved.unlink(missing_ok=True)
    _save_optimized(source, saved, options)
    return ort.InferenceSession(export, options(), providers=["CPUExecutionProvider"])


def _save_optimized(source: Path, saved: Path, options: Callable[[], Any]) -> None:
    import onnxruntime as ort

    tmp = saved.with_name(f".{saved.name}.{os.getpid()}.tmp")
    opts = options()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    opts.optimized_model_filepath = str(tmp)
    try:
        ort.InferenceSession(str(source), opts, providers=["CPUExecutionProvider"])
        os.replace(tmp, saved)  # atomic: a concurrent start sees the old state or the whole file
    except Exception:  # read-only cache, full disk: the next start optimizes again, nothing else
        tmp.unlink(missing_ok=True)

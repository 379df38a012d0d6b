"""bm25s, imported without scipy: the one place the answerer imports it from.

bm25s builds and scores its index on its numpy backend (``csc_backend="numpy"``, its
default, which hwbot uses), yet its package imports ``scipy.sparse`` up front, only to offer
the other backend. On a cold ``hwbot ask`` that import (scipy pulls in numpy.f2py and
numpy.ma) cost about 40 ms of a 0.8 s process for nothing. So while bm25s itself is
imported, scipy is made unimportable, which is the case bm25s handles itself (it then
marks scipy unavailable); when scipy is already loaded (a test session, the trainer) it is
left alone. Either way the numpy backend scores, so answers are the same.

tqdm is hidden the same way: bm25s imports ``tqdm.auto`` (~15 ms, with tqdm's version lookup)
for progress bars hwbot never shows (``show_progress=False``), and falls back to a no-op bar
when it cannot. hwbot's own progress bars import tqdm themselves.
"""

from __future__ import annotations

import sys
from types import ModuleType

__all__ = ["bm25s"]


def _import_bm25s() -> ModuleType:
    hidden = [name for name in ("scipy", "scipy.sparse", "tqdm", "tqdm.auto") if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # "import scipy" now raises ImportError
    try:
        import bm25s as module
    finally:
        for name in hidden:
            if sys.modules.get(name) is None:
                del sys.modules[name]
    return module


bm25s = _import_bm25s()

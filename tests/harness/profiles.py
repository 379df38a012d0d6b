"""Golden profiles as test data, shared by every test that needs a realistic profile."""

from __future__ import annotations

import json
from pathlib import Path

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden_profiles"


def golden(name: str) -> dict[str, str]:
    """The ``profile`` of ``tests/golden_profiles/<name>.json``."""
    return dict(json.loads((GOLDEN_DIR / f"{name}.json").read_text(encoding="utf-8"))["profile"])


#: Every "when to use TPUs" criterion holds: the textbook TPU case.
TPU_FRIENDLY = golden("01_llm_pretraining_jax_production")

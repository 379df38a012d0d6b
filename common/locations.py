"""Where hwbot keeps its files by default, without importing pydantic.

:class:`common.settings.HwbotSettings` takes its path defaults from here. The module is
separate because a cold ``hwbot ask`` wants the index directory ~0.1 s before the settings
model exists (importing pydantic-settings and building the model is that long): the CLI
starts loading the ONNX session from :func:`index_dir_hint` and builds the settings while it
loads. The settings stay the authority; a hint they disagree with only costs a session
nobody takes (``indexer.onnx_sessions`` keys sessions by file).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = [
    "INDEX_DIR_VARIABLE",
    "default_index_dir",
    "default_model_cache_dir",
    "default_state_dir",
    "default_feedback_db",
    "index_dir_hint",
]

#: The variable behind ``HwbotSettings.index_dir`` (its ``HWBOT_`` prefix plus the field name).
INDEX_DIR_VARIABLE = "HWBOT_INDEX_DIR"


def _xdg(var: str, *fallback: str) -> Path:
    base = os.environ.get(var) or str(Path.home().joinpath(*fallback))
    return Path(base) / "hwbot"


def default_index_dir() -> Path:
    """A per-user cache location, so several checkouts or users never share a half-built index."""
    return _xdg("XDG_CACHE_HOME", ".cache") / "index"


def default_model_cache_dir() -> Path:
    """Build-time exports of the model (the ONNX query encoder): once per user and model version."""
    return _xdg("XDG_CACHE_HOME", ".cache") / "models"


def default_state_dir() -> Path:
    """Dialogs and Slack state outlive the cache, so they sit under the XDG state dir."""
    return _xdg("XDG_STATE_HOME", ".local", "state")


def default_feedback_db() -> Path:
    """Feedback is user data: it outlives both the index cache and the state dir."""
    return _xdg("XDG_DATA_HOME", ".local", "share") / "feedback.sqlite3"


def index_dir_hint() -> Path:
    """The index directory the settings will most likely hold, read before they are built.

    Only for starting work early (the ONNX session of a cold ask); anything that uses the
    directory takes it from the settings."""
    value = os.environ.get(INDEX_DIR_VARIABLE)
    return Path(value) if value is not None else default_index_dir()

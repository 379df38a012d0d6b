"""The index directory a cold ask reads before the settings exist must be the one they then hold.

``bot.cli`` starts loading the ONNX session from :func:`common.locations.index_dir_hint` before
it builds :class:`common.settings.HwbotSettings`; a hint that disagrees would load a session
nobody takes and leave the real one to load late."""

from __future__ import annotations

from pathlib import Path

import pytest

from common.locations import INDEX_DIR_VARIABLE, index_dir_hint
from common.settings import HwbotSettings


@pytest.mark.parametrize("value", [None, "relative/idx", "/abs/idx", ""])
def test_the_hint_is_the_settings_index_dir(value: str | None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    if value is None:
        monkeypatch.delenv(INDEX_DIR_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(INDEX_DIR_VARIABLE, value)
    assert index_dir_hint() == HwbotSettings().index_dir
    if value is None:
        assert index_dir_hint() == tmp_path / "cache" / "hwbot" / "index"


def test_the_variable_is_the_settings_field() -> None:
    prefix = HwbotSettings.model_config.get("env_prefix", "")
    assert f"{prefix}index_dir".upper() == INDEX_DIR_VARIABLE and "index_dir" in HwbotSettings.model_fields

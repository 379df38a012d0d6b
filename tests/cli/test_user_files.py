"""Files a person names on the command line: every unusable one is one line and exit 2.

``/dev/zero`` never ends, a FIFO blocks a reader forever and a 50 MB file would be read
whole by a naive reader; ``common.textio.read_text_file`` refuses the first two without
opening them and reads at most its cap plus one byte of the third. Profiles are JSON, so
deep nesting and huge numbers must be bad input too, not an internal error.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.harness.clirun import assert_one_line_error, run

pytestmark = pytest.mark.slow

#: The three readers of user files, each given the path in its own way.
COMMANDS = {
    "ask --batch": lambda path: ["ask", "--batch", str(path), "--json"],
    "recommend --profile": lambda path: ["recommend", "--profile", str(path), "--json"],
    "faq": lambda path: ["faq", str(path)],
}


def _unusable(kind: str, tmp_path: Path) -> tuple[Path, str]:
    """A path of the given kind and a fragment its error line must contain."""
    if kind == "dev-zero":
        return Path("/dev/zero"), "not a regular file"
    if kind == "fifo":
        fifo = tmp_path / "questions.fifo"
        os.mkfifo(fifo)  # nobody ever writes: opening it for reading would block forever
        return fifo, "not a regular file"
    big = tmp_path / "huge.txt"
    with open(big, "wb") as fh:
        fh.write(b"Why would a TPU sit idle?\n" * 2_016_000)  # ~50 MB of real lines
    return big, "too large"


@pytest.fixture
def cli_env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["HWBOT_INDEX_DIR"] = str(tmp_path / "no-index")  # any attempt to answer would have to build one
    env["HWBOT_STATE_DIR"] = str(tmp_path / "state")
    env["HF_HUB_OFFLINE"] = "1"
    return env


@pytest.mark.parametrize("kind", ["dev-zero", "fifo", "50MB"])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_unusable_file_is_one_line_and_exit_2(command: str, kind: str, tmp_path: Path, cli_env: dict[str, str]) -> None:
    path, fragment = _unusable(kind, tmp_path)
    proc = run(COMMANDS[command](path), cli_env, timeout=60)  # a hang would time out here
    line = assert_one_line_error(proc, 2, str(path), fragment)
    assert "MemoryError" not in line and "internal error" not in line
    assert not (tmp_path / "no-index").exists()  # refused before anything loaded


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("[" * 20_000 + "]" * 20_000, "nested too deeply"),
        ('{"stage": ' + "[" * 20_000 + "]" * 20_000 + "}", "nested too deeply"),
        ('{"scale": ' + "9" * 5_000 + "}", "number too large"),
        ('{"scale": 1e999999}', "scale"),
    ],
    ids=["deep-array", "deep-value", "huge-integer", "huge-float"],
)
def test_hostile_json_profile_is_one_line_and_exit_2(text: str, fragment: str, tmp_path: Path, cli_env: dict[str, str]) -> None:
    profile = tmp_path / "profile.json"
    profile.write_text(text, encoding="utf-8")
    line = assert_one_line_error(run(COMMANDS["recommend --profile"](profile), cli_env), 2, str(profile), fragment)
    assert "internal error" not in line


def test_three_wrong_fields_are_named_in_one_line(tmp_path: Path, cli_env: dict[str, str]) -> None:
    profile = tmp_path / "profile.json"
    profile.write_text(json.dumps({"stage": "sometime-soon", "scale": 7, "bogus": 1}), encoding="utf-8")
    line = assert_one_line_error(run(COMMANDS["recommend --profile"](profile), cli_env), 2, "stage", "scale", "bogus")
    assert "sometime-soon" in line and "exploration" in line  # the wrong value and the allowed ones


def test_size_limits_come_from_the_settings(tmp_path: Path, cli_env: dict[str, str]) -> None:
    batch = tmp_path / "q.txt"
    batch.write_text("Why would a TPU sit idle?\n" * 100, encoding="utf-8")  # 2,600 bytes
    docs = tmp_path / "faq.md"
    docs.write_text("## Why would a TPU sit idle?\n" * 100, encoding="utf-8")
    env = {**cli_env, "HWBOT_MAX_BATCH_BYTES": "1000", "HWBOT_MAX_DOCS_BYTES": "1000"}
    assert_one_line_error(run(COMMANDS["ask --batch"](batch), env), 2, "too large (over 1000 bytes)")
    assert_one_line_error(run(COMMANDS["faq"](docs), env), 2, "too large (over 1000 bytes)")


def test_a_bad_setting_is_one_line_naming_it(tmp_path: Path, cli_env: dict[str, str]) -> None:
    env = {**cli_env, "HWBOT_MAX_DOCS_BYTES": "lots"}
    assert_one_line_error(run(["faq", str(tmp_path / "any.md")], env), 2, "max_docs_bytes", "HWBOT_")

"""``hwbot index`` end to end: summary line, incremental no-op, and source errors."""

from __future__ import annotations

import re
import shutil

from tests.harness.clirun import assert_one_line_error, run


def test_index_again_reembeds_nothing(hwbot_env, index_copy, sources_dir):
    proc = run(["index", "--sources", str(sources_dir), "--index-dir", str(index_copy)], hwbot_env)
    assert proc.returncode == 0, proc.stderr_text
    line = proc.stdout_text.strip()
    assert "already up to date" in line
    m = re.search(r"(\d+) sources, (\d+) chunks, \d+ sentences; embedded (\d+), reused (\d+);", line)
    assert m and int(m.group(1)) >= 2 and int(m.group(3)) == 0 and int(m.group(4)) > 0


def test_malformed_source_names_the_file(hwbot_env, tmp_path, sources_dir):
    src = tmp_path / "sources"
    shutil.copytree(sources_dir, src)
    (src / "zz_broken.md").write_text("---\ntitle: no id here\n---\nSome text.\n", encoding="utf-8")
    proc = run(["index", "--sources", str(src), "--index-dir", str(tmp_path / "idx")], hwbot_env)
    assert_one_line_error(proc, 2, "zz_broken.md", "no 'id'")
    assert not (tmp_path / "idx" / "CURRENT").exists()

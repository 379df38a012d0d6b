"""A whole REPL session driven through a pipe, as a script would."""

from __future__ import annotations

from tests.harness.clirun import run


def test_piped_session(hwbot_env, tmp_path):
    env = {**hwbot_env, "HWBOT_STATE_DIR": str(tmp_path / "state"), "XDG_STATE_HOME": str(tmp_path / "xdg")}
    script = "\n".join(
        [
            "Why would a TPU sit idle?",
            "",
            "/sources",
            "/help",
            "How do I cook pasta?",
            "/bogus",
            "/recommend",
            "1",  # stage: exploration
            "often",
            "critical",
            "torch",
            "cuda",
            "multi cloud",
            "training",
            "skip",
            "not sure",
            "flexibility",
            "none",
            "/quit",
            "Never answered?",
        ]
    )
    proc = run(["repl"], env, stdin=script + "\n")
    out = proc.stdout_text
    assert proc.returncode == 0, proc.stderr_text
    assert "Traceback" not in out + proc.stderr_text
    assert "Sources:" in out and "[file_gpu001:c0003] gpu_tpu_lesson_notes.md p2-2" in out
    assert "file_gpu001  gpu_tpu_lesson_notes.md" in out and "file_gpu002" in out
    assert "/recommend" in out and "/quit" in out  # the help text
    assert "do not cover" in out
    assert "Unknown command /bogus" in out
    assert "Recommendation: GPU" in out and "[gpu]" in out
    assert "Never answered" not in out


def test_piped_non_utf8_line_does_not_crash(hwbot_env):
    proc = run(["repl"], hwbot_env, stdin=b"Caf\xe9 \xff?\nWhat is a TPU?\n")
    assert proc.returncode == 0, proc.stderr_text
    assert "Sources:" in proc.stdout_text

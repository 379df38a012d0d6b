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
            "1",  # the gate first: Google Cloud
            "a single GPU",  # free text, read by the extractor
            "banana",  # not understood: a one-line hint, the question stays
            "2",  # custom kernels: some, and that settles it
            "back",  # back to the kernels question from the offer
            "critical",
            "no",  # settled: decline the questions that cannot change it
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
    # The intake is the adaptive one: the gate first, free text understood, settled early.
    assert "Question 1 (at most 11): Where must the work run?" in out
    assert "understood: a single GPU -> A single accelerator" in out
    assert "Sorry, I did not understand 'banana'." in out
    assert "current answer: Some, but we could live without them" in out
    assert "Your answers already settle it: GPU." in out and "answer them anyway? (yes/no)" in out
    assert "Done after 3 questions." in out and "/11" not in out
    assert "Never answered" not in out


def test_piped_non_utf8_line_does_not_crash(hwbot_env):
    proc = run(["repl"], hwbot_env, stdin=b"Caf\xe9 \xff?\nWhat is a TPU?\n")
    assert proc.returncode == 0, proc.stderr_text
    assert "Sources:" in proc.stdout_text


def test_piped_conversation_remembers_implies_and_takes_corrections(hwbot_env, tmp_path):
    """A situational message, then /recommend starts from it; a correction updates the field."""
    env = {**hwbot_env, "HWBOT_STATE_DIR": str(tmp_path / "state"), "XDG_STATE_HOME": str(tmp_path / "xdg")}
    script = "\n".join([
        "We're a JAX shop on Google Cloud; the model has been frozen for a year and we train it on 512 TPU v5p chips. "
        "Should we move to TPUs?",
        "/recommend",
        "cancel",
        "no, we're on Azure",
        "/recommend",
        "cancel",
        "Wir trainieren ein großes Modell mit JAX auf TPUs.",
        "/quit",
    ])
    proc = run(["repl"], env, stdin=script + "\n")
    out = proc.stdout_text
    assert proc.returncode == 0, proc.stderr_text
    assert "Traceback" not in out + proc.stderr_text
    first, second = out.split("Intake cancelled.")[:2]
    # the message's verdict says what was implied, apart from what was stated
    assert "implied: stage stabilizing" in first
    # /recommend starts from what was said, and asks only what remains: never the cloud again
    intake = first[first.index("From what you said:"):]
    assert 'cloud = Google Cloud ("Google Cloud")' in intake and "implied: stage = Stabilizing" in intake
    assert "Where must the work run?" not in intake and "Question 1 (at most 4)" in intake
    # a correction updates the field and re-scores, without a trip to the notes
    assert 'Updated cloud: google cloud -> other single cloud (you wrote "Azure")' in second
    assert "cloud = One other cloud" in second[second.index("From what you said: architecture_changes"):]
    # not English: said so, in English, and nothing guessed
    tail = out.split("Intake cancelled.")[2]
    assert "I read English only" in tail and "Recommendation" not in tail

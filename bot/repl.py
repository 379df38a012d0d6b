"""``hwbot repl``: the local chat loop.

Interactive use gets prompt_toolkit (history, line editing; Ctrl-C cancels the line,
Ctrl-D exits). Piped stdin is read line by line with no prompts, so a session can be
scripted: ``printf 'Why would a TPU sit idle?\\n/quit\\n' | hwbot repl``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from rich.console import Console

from common.errors import HwbotError
from common.settings import HwbotSettings

__all__ = ["run_repl", "Repl", "HELP"]

HELP = """Ask a question about GPUs and TPUs, e.g. "Why would a TPU sit idle?".
Commands:
  /recommend   answer a short intake and get a GPU / TPU / GPU-now-TPU-later recommendation
  /sources     list the knowledge sources
  /help        show this help
  /quit        exit (Ctrl-D works too)"""


def _history_path(settings: HwbotSettings) -> Path:
    return settings.state_dir / "repl_history"


class Repl:
    """The loop itself, independent of where lines come from (tests drive it directly)."""

    def __init__(
        self,
        read_line: Callable[[str], str | None],
        console: Console,
        engine_factory: Callable,
        *,
        settings: HwbotSettings,
        intake_key: str = "repl",
        resume_intake: bool = True,
        extract: Callable | None = None,
    ) -> None:
        self.read_line = read_line
        self.settings = settings
        self.intake_key = intake_key
        self.resume_intake = resume_intake
        self.console = console
        self._engine_factory = engine_factory
        self._engine = None
        #: the process's extraction step (the one ``recommend --text`` uses), opened lazily
        self.extract = extract
        from bot.conversation import Understood

        #: what this conversation has established about the team (bot.conversation)
        self.understood = Understood()

    @property
    def engine(self):
        if self._engine is None:
            self._engine = self._engine_factory()
        return self._engine

    def say(self, text: str, style: str | None = None) -> None:
        # markup=False: answer text and user input are never interpreted as rich markup.
        self.console.print(text, style=style, markup=False, highlight=False, soft_wrap=True)

    def handle(self, line: str) -> bool:
        """Process one input line; returns False when the session should end."""
        from knowledge.qa.hygiene import EmptyQuestionError

        text = line.strip()
        if not text:
            return True
        if text.startswith("/"):
            return self._command(text)
        try:
            from bot.conversation import converse

            # situational messages get the verdict and are remembered for /recommend; corrections update them
            advice, self.understood = converse(self.engine.ask, text, self.understood, self.extract)
            answer = advice.answer
        except EmptyQuestionError:
            self.say("Please type a question (or /help).")
            return True
        except HwbotError as exc:
            self.say(f"Error: {exc.one_line()}", style="red")
            return True
        from bot.plaintext import render_answer_text

        self.say(render_answer_text(answer))
        self.say("")
        return True

    def _command(self, text: str) -> bool:
        try:
            return self._run_command(text)
        except HwbotError as exc:
            self.say(f"Error: {exc.one_line()}", style="red")
            return True

    def _run_command(self, text: str) -> bool:
        cmd = text.split()[0].lower()
        if cmd in ("/quit", "/exit", "/q"):
            return False
        if cmd == "/help":
            self.say(HELP)
        elif cmd == "/sources":
            for s in self.engine.sources:
                url = f"  {s.url}" if s.url else ""
                self.say(f"{s.id}  {s.file}  ({s.chunks} chunks)  {s.title}{url}")
        elif cmd == "/recommend":
            from bot.intake.persistence import IntakeStore
            from bot.intake.session import run_intake_session
            from bot.plaintext import render_recommendation_text

            # An interactive user may resume an intake left unfinished; a script starts fresh.
            u = self.understood
            store = IntakeStore.open(self.settings)
            result = run_intake_session(
                self.read_line, self.say, key=self.intake_key, store=store, resume=self.resume_intake,
                given=dict(u.stated), implied={f: (i.value, i.because) for f, i in u.implied().items()},
            )
            if result is not None:  # the dialog itself reports a cancel or a pause
                self.say(render_recommendation_text(result))
                self.say("")
        else:
            self.say(f"Unknown command {cmd}. Type /help for the commands.")
        return True

    def loop(self) -> None:
        while True:
            try:
                line = self.read_line("hwbot> ")
            except KeyboardInterrupt:
                continue  # Ctrl-C cancels the current line only
            if line is None:
                return
            try:
                if not self.handle(line):
                    return
            except KeyboardInterrupt:
                self.say("Cancelled.")  # Ctrl-C stops the answer or intake, not the REPL


def _piped_reader() -> Iterator[str]:
    """Lines from a non-TTY stdin; undecodable bytes are replaced rather than crashing."""
    stream = sys.stdin.buffer if hasattr(sys.stdin, "buffer") else None
    if stream is None:
        yield from sys.stdin
        return
    for raw in stream:
        yield raw.decode("utf-8", errors="replace")


def run_repl(settings: HwbotSettings) -> None:
    from bot.engines import get_engine
    from bot.extractor import lazy_extractor

    console = Console(stderr=False)
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    if interactive:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory, InMemoryHistory

        hist_path = _history_path(settings)
        try:
            hist_path.parent.mkdir(parents=True, exist_ok=True)
            history: FileHistory | InMemoryHistory = FileHistory(str(hist_path))
        except OSError:
            history = InMemoryHistory()
        session: PromptSession[str] = PromptSession(history=history)

        def read_line(prompt: str) -> str | None:
            try:
                return session.prompt(prompt)
            except EOFError:
                return None

        console.print("hwbot: cited GPU vs TPU answers. Type /help for commands, /quit to exit.", markup=False)
        with console.status("Loading the model and the index…"):
            engine = get_engine(settings)
        repl = Repl(read_line, console, lambda: engine, settings=settings, extract=lazy_extractor(settings))
    else:
        lines = _piped_reader()

        def read_line(prompt: str) -> str | None:
            return next(lines, None)

        repl = Repl(
            read_line, console, lambda: get_engine(settings), settings=settings,
            intake_key=f"repl-pipe-{os.getpid()}", resume_intake=False, extract=lazy_extractor(settings),
        )
    repl.loop()

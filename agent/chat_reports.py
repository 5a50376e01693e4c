"""What a chat reports, and where: failures on its error stream, counted for the exit
status; one JSON object per line under --json; and the line Ctrl-C leaves.

``ChatReports`` holds a chat's streams: the console for replies, and standard error (or
the ``errors`` given) for failures, wrapped under its text on a terminal, as replies are,
and whole into a pipe or a file. It is how the slash commands (agent/slash_commands.py,
``ChatOutput``) and the chat's loop (agent/repl.py, ``ChatRepl``) report a failed turn or
command, a command used wrongly, one that did nothing, and a defect: each is counted, so a
piped run's exit status is 1, and is the ``error`` of the line's --json record.

``piped_stop_note`` and ``stopped_command`` say what Ctrl-C, SIGTERM or SIGHUP left when
it stopped a chat between lines, at the prompt or during a slash command (a turn rolls back
and says so itself).
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from rich.console import Console

from tiermem.agent.chat_help import print_laid_out, reply_text
from tiermem.agent.chat_output import error_kind
from tiermem.agent.terminal import TerminalConsole, escape, printable
from tiermem.tools.safe_text import safe_text

__all__ = ["AFTER_STORE_LOST", "SHOWING_TURN", "STORE_LOST_ENDED", "ChatReports",
           "piped_stop_note", "stopped_command"]


#: What each slash command that writes leaves when Ctrl-C stops it; the others only read
#: or hold for the session, and leave nothing changed.
_STOPPED_WRITES = {
    "/snapshot": "a snapshot file is written whole or not at all",
    "/history": "the prompt history is cleared whole or not at all",
}


#: ``ChatRepl.running`` once a turn is saved, while it is shown.
SHOWING_TURN = "turn"
#: A chat the lost store ended: the line that met the loss was not kept.
AFTER_STORE_LOST = "after the memory's database connection was lost"
#: A signal after such a chat's end: its own line said what was not kept.
STORE_LOST_ENDED = f"as the session ended, {AFTER_STORE_LOST}"


def piped_stop_note(command: str | None, agent: str, store: str | None,
                    cause: str = "Ctrl-C", at_prompt: bool = False) -> str:
    """The line a chat ends with when ``cause`` (Ctrl-C, SIGTERM, SIGHUP) stops it between
    lines or during the slash command ``command`` (not a turn: that rolls back and says
    so itself); ``at_prompt``: an interactive chat, which only SIGTERM or SIGHUP ends so."""
    if at_prompt:
        rest = ("the turns and commands before it were saved, and a line typed but not sent "
                "was not")
        waiting = "at the prompt"
    else:
        rest = "the lines before it were handled, and none after it was read"
        waiting = "while waiting for the next line"
    if command is None:
        return f"chat stopped ({cause}) {waiting}; {rest}"
    if command == SHOWING_TURN:
        return (f"chat stopped ({cause}) after its turn was saved, while showing it (/recall "
                f"finds it); {rest}")
    said = stopped_command(command, agent, store)
    return f"chat stopped ({cause}) during {printable(command)}: {said}; {rest}"


def stopped_command(command: str, agent: str, store: str | None) -> str:
    """What the slash command ``command`` that Ctrl-C stopped left."""
    from tiermem.agent.place import store_flag

    if command == "/forget":
        finish = f"tiermem forget --agent {agent}{store_flag(store)} --finish-erasures"
        effect = (f"what it forgot before that stays forgotten, and `{finish}` completes an "
                  f"erasure it left")
    else:
        effect = _STOPPED_WRITES.get(command, "it changed nothing")
    return effect


class ChatReports:
    """A chat's streams, and its failures counted for the exit status."""

    def __init__(self, console: Console | None = None, errors: TextIO | None = None,
                 json_lines: bool = False) -> None:
        self.console = console or TerminalConsole()
        self.errors = errors
        # Wrapped under its text on a terminal, as replies are; whole into a pipe or a file.
        self.error_console = TerminalConsole(file=errors, highlight=False) \
            if errors else TerminalConsole(stderr=True, highlight=False)
        self.json_lines = json_lines
        self.failures = 0
        #: The failure of the line under way, for its --json record.
        self._error: dict[str, str] | None = None

    def fail(self, label: str, exc: Exception, hint: str | None = None) -> None:
        """A failed turn or command: shown on the error stream, counted for the exit status."""
        message = safe_text(str(exc))
        self._count_failure(error_kind(exc), message, hint)
        errors = self.error_console
        print_laid_out(errors, reply_text(errors, f"[red]{escape(label)}:[/red] {escape(message)}"))
        if hint:
            print_laid_out(errors, reply_text(errors, f"[dim]{escape(hint)}[/dim]"))

    def usage(self, message: str) -> None:
        """A slash command used wrongly: an error like a failed command (standard error,
        the exit status, ``error`` under --json), so a script notices its typo."""
        self._count_failure("usage", safe_text(message))
        errors = self.error_console
        print_laid_out(errors, reply_text(errors, f"[red]{escape(message)}[/red]"))

    def not_done(self, kind: str, message: str) -> None:
        """A command that ran and said so on standard output but did nothing (a /forget
        that matched nothing): counted for the exit status and as ``error`` under --json."""
        self._count_failure(kind, safe_text(message))

    def _count_failure(self, kind: str, message: str, hint: str | None = None) -> None:
        self.failures += 1
        self._error = {"kind": kind, "message": message, **({"hint": hint} if hint else {})}

    def report_defect(self, exc: Exception, outcome: str) -> None:
        """One line on standard error for an exception that should not have happened."""
        detail = " ".join(safe_text(str(exc)).split())[:300]
        self._count_failure("internal", f"{type(exc).__name__}: {detail}")
        line = (f"tiermem: internal error ({type(exc).__name__}: {detail}); {outcome}. "
                "The session goes on; please report this.\n")
        self._write_error(line)

    def _end_cut(self) -> None:
        if isinstance(self.console, TerminalConsole):
            self.console.end_cut()

    def _write_error(self, line: str) -> None:
        """A line on standard error, written at once (wrapped under its text on a terminal,
        as ``fail`` writes); a closed or broken one is no reason to end the session, or to
        replace the exception being raised."""
        stream = self.errors or sys.stderr
        errors = self.error_console
        try:
            self._end_cut()  # the line Ctrl-C cut short, and its colour, end first
            if not errors.soft_wrap:
                with errors.capture() as captured:
                    print_laid_out(errors, reply_text(errors, escape(line.rstrip("\n"))))
                line = captured.get()
            stream.write(line)
            stream.flush()
        except (AttributeError, OSError, ValueError):  # AttributeError: sys.stderr is None
            pass

    def emit(self, record: dict[str, Any]) -> None:
        """One JSON object on its own line of standard output."""
        self.console.file.write(json.dumps(record) + "\n")
        self.console.file.flush()

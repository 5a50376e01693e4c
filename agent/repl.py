"""The chat REPL: prompt-toolkit input, rich output; its slash commands are in
agent/slash_commands.py, what the prompt's keys do in agent/prompt_keys.py, and how it
reports failures and stops, and on which stream, in agent/chat_reports.py.

Input and output are injectable: ``ChatRepl(agent, console=..., errors=...)``
runs under a prompt-toolkit pipe input in tests, and ``run_piped`` reads plain
lines when standard input is not a terminal, so chats can be scripted.

At the prompt, Ctrl-C during a turn cancels it: the agent rolls it back and
keeps the message in recall as unanswered (agent/loop.py), and the prompt
comes back. Ctrl-C while a reply or a command's output is printed cuts the
rest of it (agent/terminal.py), and the note after it says so. Ctrl-C at an
empty prompt says how to leave, and a second one in a row leaves; with text
typed, it discards the text.

A line is a slash command when its first word starts with "/" and holds no other
"/" (``is_command``): "/var/log is full" is a message. "//" at the start escapes
a message that starts with "/": "//help" sends "/help".

Piped, replies go to standard output and failures to standard error, and the
exit status is 1 when any turn or command failed; a slash command used wrongly
(unknown, missing its argument, or given words it does not take) is such a failure, so
a script's typo shows, and so is a /forget that forgot nothing.
With ``json_lines`` standard output carries one JSON object per line of input
(agent/chat_output.py) and nothing else.

A turn or command that fails never ends the session. Provider errors and the
other expected errors (``TiermemError``) are shown as errors; any other
exception is a defect, reported as one line on standard error while the
session goes on. Piped, Ctrl-C ends the run as it ends any command (exit 130),
once the turn is rolled back, with a line on standard error saying so.

SIGTERM and SIGHUP, piped or at the prompt, end the chat as that Ctrl-C ends a
piped run (agent/interrupts.py): a turn under way is rolled back and its
message kept as unanswered, with a line on standard error saying so, as piped
between lines or during a slash command one says where it stopped; the prompt
gives the terminal back, and there a line says what was saved; the exit status is 143
or 129 (``Terminated``).
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console
from rich.text import Text

from tiermem.agent.chat_help import command_named, hanging, print_laid_out, reply_text
from tiermem.agent.chat_output import UNANSWERED, provider_hint, show_turn, turn_record
from tiermem.agent.chat_reports import (
    SHOWING_TURN,
    STORE_LOST_ENDED,
    ChatReports,
    piped_stop_note,
    stopped_command,
)
from tiermem.agent.closed_streams import is_output_failure
from tiermem.agent.errors import ProviderError
from tiermem.agent.interrupts import (
    InterruptReported,
    Terminated,
    ctrl_c_held,
    terminate_on_signals,
)
from tiermem.agent.line_input import OverlongLine, typed_text, unpadded
from tiermem.agent.loop import Agent
from tiermem.agent.prompt_keys import prompt_output, read_line
from tiermem.agent.slash_commands import SlashCommands, first_word, is_command
from tiermem.agent.terminal import TerminalConsole, escape, printable
from tiermem.memory.errors import InvalidInputError, TiermemError
from tiermem.memory.text.shown import shown_path

#: A turn Ctrl-C cancelled; piped, the run ends with it (tiermem: ... on standard error).
TURN_CANCELLED = f"cancelled; {UNANSWERED}"
#: Piped, once the memory's database connection is gone: the lines left are not read.
STORE_LOST = ("the memory's database connection was lost, so the run stops here: the line "
              "that met it was not kept, and any after it were not read; check the server, "
              "then send them again")
#: Interactive, once the memory's database connection is gone: nothing more could be kept.
STORE_LOST_INTERACTIVE = ("the memory's database connection was lost, so the chat ends "
                          "here: the line that met it was not kept; check the server, then "
                          "start the chat again")
#: Piped, Ctrl-C pressed while a finished turn was being saved: the turn stands.
INTERRUPTED_AT_COMMIT = "cancelled after the turn was saved; the run stops here"
#: SIGTERM or SIGHUP came while a finished turn was being saved: the turn stands.
TERMINATED_AT_COMMIT = "the turn was saved; the chat stops here"
CANCELLED = f"{TURN_CANCELLED} (Ctrl-C again or /exit to leave)"
LEAVE_HINT = "press Ctrl-C again or type /exit to leave"
#: Ctrl-C as a saved turn was shown: the rest of it is not shown later.
REPLY_CUT = "the rest of this turn's output was cut (Ctrl-C); the turn is saved, /recall finds it"
#: Ctrl-C as a slash command printed: the rest is not printed later.
OUTPUT_CUT = "the rest of its output was cut"


class ChatRepl(ChatReports):
    """One chat session over an ``Agent``; what it reports, and where, is ``ChatReports``'s
    (agent/chat_reports.py)."""

    def __init__(self, agent: Agent, console: Console | None = None,
                 agent_name: str = "default", errors: TextIO | None = None,
                 json_lines: bool = False, home: Path | None = None,
                 store: str | None = None) -> None:
        super().__init__(console, errors, json_lines)
        self.agent = agent
        self.agent_name = agent_name
        self.interactive = False
        self.cancelled = False  # the last line's turn was cancelled by Ctrl-C
        self.store = store
        #: The slash command under way (its name), for what Ctrl-C stopped.
        self.running: str | None = None
        #: Input was read: a signal the loop did not report came as the session ended.
        self.began = False
        #: The session ended because the store was lost: what came after was not kept.
        self.store_lost = False
        self.commands = SlashCommands(agent, self, home, store)

    # -- loops ----------------------------------------------------------------------------
    def banner(self) -> None:
        memory = self.agent.memory
        # Each line wrapped between words with a hanging indent at a narrow width.
        print_laid_out(self.console, hanging(self.console, Text.assemble(
            ("tiermem", "bold"), " agent ", (self.agent_name, "cyan"),
            f" · model: {self.agent.llm.name}")))
        print_laid_out(self.console, hanging(self.console, Text(
            f"core {memory.core.used}/{memory.core.limit} {memory.core.unit}, "
            f"{len(memory.archival)} archival, {len(memory.recall)} recall")))
        # Where it is kept: the agent home's directory, or the agent in its database (no
        # password); a memory held only in this process says nothing.
        where = memory.store.location
        if where != "memory":
            print_laid_out(self.console, hanging(self.console, Text(
                f"memory: {shown_path(where)}")))
        print_laid_out(self.console, hanging(self.console, Text(
            "/help for commands, /exit or Ctrl-D to leave", style="dim")))

    def run_piped(self, lines: Iterable[str | OverlongLine]) -> int:
        """Handle each line of non-interactive input; 1 if any turn or command failed.

        Once the memory's store is lost (its database connection ended by the server or
        the network), every later line would fail the same way, and none be kept: the
        run stops there."""
        with terminate_on_signals():
            return self._read_piped(lines)

    def _read_piped(self, lines: Iterable[str | OverlongLine]) -> int:
        try:
            self.began = True
            for line in lines:
                if isinstance(line, OverlongLine):
                    self.refuse(line)
                elif not self.handle(line.rstrip("\r\n")):
                    break
                self.running = None
                if self.agent.memory.store.lost:
                    self.store_lost = True
                    self._write_error(f"tiermem: {STORE_LOST}\n")
                    break
        except InterruptReported:
            raise  # a turn: it said what it rolled back or kept
        except KeyboardInterrupt as exc:
            # Between lines, or during a slash command: the run ends as for a turn (130),
            # saying where it stopped, and with --json a record for the command's line.
            self._say_where_stopped("Ctrl-C")
            raise InterruptReported from exc
        except Terminated as exc:
            if not exc.reported:  # a turn said what it rolled back or kept; here, nothing did
                self._say_where_stopped(exc.name)
                exc.reported = True
            raise
        return 1 if self.failures else 0

    def _say_where_stopped(self, cause: str) -> None:
        command, self.running = self.running, None
        # Once the store is lost, its own line said what was not kept: not "were saved".
        said = (f"chat stopped ({cause}) {STORE_LOST_ENDED}" if self.store_lost else
                piped_stop_note(command, self.agent_name, self.store, cause, self.interactive))
        self._write_error(f"tiermem: {said}\n")
        if command is not None and self.json_lines:
            with contextlib.suppress(OSError, ValueError):
                self.emit({"command": command, "output": "",
                           "error": {"kind": "cancelled", "message": said}})

    def refuse(self, line: OverlongLine) -> None:
        """A line too long to be a message: a failed turn, without reading it whole."""
        self._error = None
        start = unpadded(line.start)  # "\ufeff/forget ...", as a short line is read
        command = (command_named(first_word(start)[0]) + ("…" if line.word_cut else "")
                   if is_command(start) else None)
        if command is None:
            self.fail("error", InvalidInputError(line.message))
        else:  # "split it into smaller messages" is no way to run a command
            self.fail("error", InvalidInputError(
                f"line {line.number} of the input is over {line.limit:,} characters, the "
                f"longest line the chat reads, and {command} was not run"))
        if self.json_lines:
            self.emit(turn_record(line.start, None, self._error) if command is None else
                      {"command": command, "output": "", "error": self._error})

    def run_interactive(self, session: Any = None, history: Any = None) -> int:
        """Prompt until /exit, Ctrl-D or a second Ctrl-C at an empty prompt; returns 0.
        Once the memory's store is lost, every later line would fail and nothing typed be
        kept, while /core went on showing what it last read: the chat ends, returning 1.

        A Ctrl-C can land anywhere, also between two prompts, where the terminal
        turns it into an interrupt rather than a key: outside a turn, every one
        counts as a press at an empty prompt, and the notes it prints are
        printed in the next round, where a further press is handled the same way.
        """
        from prompt_toolkit import PromptSession

        if session is None:
            session = PromptSession(history=history, **prompt_output())
        # /history clear empties a history kept for the session only (--no-history) too.
        self.commands.session_history = getattr(session, "history", None)
        with terminate_on_signals():
            try:
                return self._prompt(session)
            except Terminated as exc:
                # At the prompt or during a slash command: nothing else says what stands.
                if not exc.reported:
                    self._say_where_stopped(exc.name)
                    exc.reported = True
                raise
            except KeyboardInterrupt:
                # Pressed as the banner was written: the line the command line then
                # writes for the press must not start in the cut line, in its colour.
                with contextlib.suppress(OSError, ValueError):
                    self._end_cut()
                raise

    def _prompt(self, session: Any) -> int:
        self.interactive = self.began = True
        self.banner()
        leave_armed = False  # the last Ctrl-C left an empty prompt: one more leaves
        note: str | None = None
        while True:
            try:
                if note:
                    shown, note = note, None
                    with ctrl_c_held():  # a press meanwhile leaves, after the hint is whole
                        self._end_cut()
                        print_laid_out(self.console, reply_text(self.console,
                                                                f"[dim]{shown}[/dim]"))
                line, warning = typed_text(read_line(session))
                if warning:
                    self._write_error(f"tiermem: {warning}\n")
                leave_armed = False
                if not self.handle(line):
                    return 0
                self.running = None
                if self.agent.memory.store.lost:
                    self.store_lost = True
                    self._write_error(f"tiermem: {STORE_LOST_INTERACTIVE}\n")
                    return 1
                leave_armed = self.cancelled
            except EOFError:
                return self._bye()
            except KeyboardInterrupt:
                stopped, self.running = self.running, None
                if leave_armed or self.cancelled:  # a second press, after a cancelled turn
                    return self._bye()
                leave_armed, note = True, LEAVE_HINT
                # What was cut is not written later: one line says so instead.
                cut = isinstance(self.console, TerminalConsole) and self.console.cut
                if stopped == SHOWING_TURN and cut:
                    note = f"{REPLY_CUT}; {LEAVE_HINT}"
                elif stopped is not None and stopped != SHOWING_TURN:
                    # A slash command cut short: say so, or it reads as having had no effect.
                    said = stopped_command(stopped, self.agent_name, self.store)
                    output = f"{OUTPUT_CUT}; " if cut else ""
                    note = (f"{escape(printable(stopped))} stopped (Ctrl-C): {escape(said)}; "
                            f"{output}{LEAVE_HINT}")

    def _bye(self) -> int:
        with contextlib.suppress(KeyboardInterrupt):  # pressed again while leaving: leave
            self._end_cut()
            self.console.print("[dim]bye[/dim]")
        return 0

    # -- one line -------------------------------------------------------------------------
    def handle(self, line: str) -> bool:
        """Process one input line; False means the session should end."""
        self.cancelled = False
        self._error = None
        text = unpadded(line)
        if not text:
            return True
        if text.startswith("//"):
            text = text[1:]  # the escape: a message that starts with "/"
        elif is_command(text):
            return self.command(text)
        result = None
        try:
            result = self.agent.step(text)
        except (KeyboardInterrupt, Terminated) as exc:
            ending = isinstance(exc, Terminated)
            if ending or not self.interactive:
                # The run ends (exit 130; 143 or 129); a script's log should say why it
                # stopped, and a script reading records gets one for the line it sent.
                why = f"{exc.name}: " if isinstance(exc, Terminated) else ""
                self._write_error(f"tiermem: {why}{TURN_CANCELLED}\n")
                if self.json_lines:
                    with contextlib.suppress(OSError, ValueError):
                        self.emit(turn_record(text, None, {"kind": "cancelled",
                                                           "message": TURN_CANCELLED}))
                if isinstance(exc, Terminated):
                    exc.reported = True
                    raise
                raise InterruptReported from exc
            self.cancelled = True
            with ctrl_c_held():  # a press meanwhile is the second: it leaves (``_prompt``)
                print_laid_out(self.console, reply_text(self.console,
                                                        f"[yellow]{CANCELLED}[/yellow]"))
            return True
        except ProviderError as exc:
            self.fail("model error", exc,
                      provider_hint(exc, getattr(self.agent.llm, "context_window", None)))
        except TiermemError as exc:
            self.fail("error", exc)
        except Exception as exc:
            if is_output_failure(exc):
                raise
            self.report_defect(exc, "this turn was not completed and its memory changes were "
                                    "rolled back")
        self.running = SHOWING_TURN if result is not None else None
        if result is not None and result.stopped:
            # The agent cut the turn short (the step cap, unreadable tool calls): what it
            # did stands, but a script must not read the line as answered.
            self._count_failure("turn_stopped", result.notice or result.stopped)
        if self.json_lines:
            self.emit(turn_record(text, result, self._error))
        elif result is not None:
            try:
                show_turn(self.console, result)
            except Exception as exc:
                if is_output_failure(exc):
                    raise
                self.report_defect(exc, "the turn was saved but could not be shown; /recall "
                                        "finds it")
        if not self.json_lines:  # the model's forget calls clean an old history file too
            self.commands.old_file_news()
        if result is not None and self.agent.interrupted_at_commit and not self.interactive:
            # Ctrl-C came as the turn was being saved: held, it let the turn finish, but the
            # run must still stop, as for a press a moment earlier.
            self._write_error(f"tiermem: {INTERRUPTED_AT_COMMIT}\n")
            raise InterruptReported
        if result is not None and self.agent.terminated_at_commit is not None:
            ended = Terminated(self.agent.terminated_at_commit)  # as the turn was saved
            self._write_error(f"tiermem: {ended.name}: {TERMINATED_AT_COMMIT}\n")
            ended.reported = True
            raise ended
        return True

    # -- slash commands (agent/slash_commands.py) --------------------------------------------
    def command(self, text: str) -> bool:
        self.running = command_named(first_word(text)[0])  # as its record names it
        keep = self._command(text)
        self.running = None
        return keep

    def _command(self, text: str) -> bool:
        if not self.json_lines:
            return self.commands.run(text)
        shown, self.console = self.console, TerminalConsole(file=io.StringIO(), width=120,
                                                             soft_wrap=True, highlight=False)
        try:
            keep = self.commands.run(text)
            output = self.console.file.getvalue()  # type: ignore[attr-defined]
        finally:
            self.console = shown
        if keep:  # a command by its name, an unknown one as typed, as its error names it
            self.emit({"command": command_named(first_word(text)[0]), "output": output,
                       "error": self._error})
        return keep

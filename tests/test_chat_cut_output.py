"""Output Ctrl-C cuts short in the chat is never printed later, and one line says it was cut.

A terminal that cannot take output as fast as the chat writes it (a slow link, a long
reply, a /help listing) keeps the chat inside a write, where a Ctrl-C lands. The file
here raises ``KeyboardInterrupt`` inside its write once it has taken part of the text,
as Python raises it from an interrupted write, so the press lands in the same place
every run.
"""

from __future__ import annotations

import io
import os
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit import PromptSession
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from tiermem.agent.loop import Agent
from tiermem.agent.offline import OfflinePolicy
from tiermem.agent.repl import LEAVE_HINT, OUTPUT_CUT, REPLY_CUT, ChatRepl
from tiermem.agent.scripted import ScriptedModel, reply
from tiermem.agent.terminal import TerminalConsole
from tiermem.memory import HashingEmbedder, HierarchicalMemory

LINES = [f"L{number:04d} the nightly backup copied its files to the archive"
         for number in range(400)]


class CutTerminal(io.StringIO):
    """A terminal on which the first write holding ``cut_at`` is cut short just before it
    by Ctrl-C."""

    def __init__(self, cut_at: str) -> None:
        super().__init__()
        self.cut_at: str | None = cut_at
        self.writes = 0

    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.writes += 1
        if self.cut_at is not None and self.cut_at in text:
            super().write(text[:text.index(self.cut_at) + 3])
            self.cut_at = None
            raise KeyboardInterrupt
        return super().write(text)


def console_on(terminal: CutTerminal) -> TerminalConsole:
    return TerminalConsole(file=terminal, width=100, force_terminal=True, color_system=None)


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


def test_a_print_cut_short_is_not_written_again_by_the_next() -> None:
    terminal = CutTerminal("L0040")
    console = console_on(terminal)
    with pytest.raises(KeyboardInterrupt):
        console.print("\n".join(LINES))
    console.print("next")
    shown = terminal.getvalue()
    assert shown.count("L0000") == 1 and "L0041" not in shown
    assert shown.endswith("L00next\n")


def test_the_line_a_cut_left_half_written_is_ended_once() -> None:
    terminal = CutTerminal("L0040")
    console = console_on(terminal)
    with pytest.raises(KeyboardInterrupt):
        console.print("\n".join(LINES))
    assert console.end_cut()
    console.print("next")
    assert terminal.getvalue().endswith("L00\nnext\n")
    assert not console.end_cut()  # said once


def test_ctrl_c_as_a_print_is_laid_out_writes_none_of_it() -> None:
    terminal = CutTerminal("never")
    console = console_on(terminal)

    class Interrupting:
        def __rich__(self) -> str:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        console.print("first", Interrupting())
    assert console.end_cut()
    console.print("next")
    assert terminal.getvalue() == "\nnext\n"


class BlockedDescriptor(io.RawIOBase):
    """A terminal's descriptor (a file here) whose first write holding ``cut_at`` is
    interrupted by Ctrl-C before it took a byte, as a write blocked on a full terminal
    is: the buffered stream above it keeps the bytes for its next flush."""

    def __init__(self, descriptor: int, cut_at: str) -> None:
        super().__init__()
        self.descriptor = descriptor
        self.cut_at: bytes | None = cut_at.encode()

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.descriptor

    def write(self, data: Any) -> int:
        if self.cut_at is not None and self.cut_at in bytes(data):
            self.cut_at = None
            raise KeyboardInterrupt
        return os.write(self.descriptor, data)


def test_what_a_blocked_write_kept_in_its_stream_is_not_sent_after_the_press(
        tmp_path: Path) -> None:
    # A listing shorter than the stream's buffer (a /core table, a page of /recall
    # hits) waits there whole while the terminal takes nothing.
    with open(tmp_path / "terminal", "w+b") as shown:
        stream = io.TextIOWrapper(io.BufferedWriter(BlockedDescriptor(shown.fileno(), "L0000")),
                                  encoding="utf-8", line_buffering=True)
        console = TerminalConsole(file=stream, width=100, force_terminal=True,
                                  color_system=None)
        with pytest.raises(KeyboardInterrupt):
            console.print("\n".join(LINES[:40]))
        assert console.end_cut()
        console.print("next")
        stream.flush()
        shown.seek(0)
        assert shown.read() == b"\nnext\n"


def interactive(repl: ChatRepl, keys: str) -> int:
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        pipe.close()
        return repl.run_interactive(session=PromptSession(input=pipe, output=DummyOutput()))


def numbered_lines(shown: str) -> Counter[str]:
    return Counter(re.findall(r"L\d{4}", shown))


def test_a_reply_cut_short_is_not_shown_again_and_one_line_says_so(
        memory: HierarchicalMemory) -> None:
    terminal = CutTerminal("L0040")
    repl = ChatRepl(Agent(memory, ScriptedModel([reply("\n".join(LINES))])),
                    console=console_on(terminal), errors=io.StringIO())
    assert interactive(repl, "How did the backups go?\r\x04") == 0
    shown = terminal.getvalue()
    counts = numbered_lines(shown)
    assert max(counts.values()) == 1 and "L0039" in counts and "L0040" not in counts
    assert " ".join(shown.split()).count(f"{REPLY_CUT}; {LEAVE_HINT}") == 1
    assert shown.rstrip().endswith("bye")


def test_a_slash_command_cut_short_says_it_stopped_and_its_output_was_cut(
        memory: HierarchicalMemory) -> None:
    terminal = CutTerminal("/recall")
    repl = ChatRepl(Agent(memory, OfflinePolicy()), console=console_on(terminal),
                    errors=io.StringIO())
    assert interactive(repl, "/help\r\x04") == 0
    shown = " ".join(terminal.getvalue().split())
    assert shown.count("/core") == 1  # printed before the cut, and only then
    assert "/diagnostics" not in shown  # after it
    assert shown.count(f"/help stopped (Ctrl-C): it changed nothing; {OUTPUT_CUT}; "
                       f"{LEAVE_HINT}") == 1


def test_a_piped_run_cut_short_says_why_on_a_line_of_its_own(
        memory: HierarchicalMemory) -> None:
    # `tiermem chat < questions.txt`, its output and errors on one terminal.
    terminal = CutTerminal("/recall")
    repl = ChatRepl(Agent(memory, OfflinePolicy()), console=console_on(terminal),
                    errors=terminal)
    with pytest.raises(KeyboardInterrupt):
        repl.run_piped(["/help\n"])
    assert "/re\ntiermem: chat stopped (Ctrl-C) during /help" in terminal.getvalue()


def test_ctrl_c_in_the_banner_turns_its_colour_off_and_ends_its_line(
        memory: HierarchicalMemory) -> None:
    terminal = CutTerminal("tiermem")  # in the bold name: bold would stay on
    console = TerminalConsole(file=terminal, width=100, force_terminal=True,
                              color_system="standard")
    repl = ChatRepl(Agent(memory, OfflinePolicy()), console=console, errors=io.StringIO())
    with pytest.raises(KeyboardInterrupt):
        interactive(repl, "\x04")
    assert terminal.getvalue() == "\x1b[1mtie\x1b[0m\n"

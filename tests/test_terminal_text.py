"""Stored text shown in a terminal: escape sequences are displayed, never obeyed."""

from __future__ import annotations

import fcntl
import io
import os
import pty
import struct
import termios
from pathlib import Path

from rich.table import Table
from test_cli import tiermem

from tiermem.agent.terminal import TerminalConsole, printable
from tiermem.memory import HashingEmbedder, HierarchicalMemory

RED = "\x1b[31mRED\x1b[0m"


def test_printable_shows_control_characters_and_keeps_the_rest() -> None:
    assert printable(f"a{RED}b") == "a\\x1b[31mRED\\x1b[0mb"
    assert printable("title \x1b]0;pwned\x07 csi \x9b2J del \x7f") == (
        "title \\x1b]0;pwned\\x07 csi \\x9b2J del \\x7f")
    text = "tabs\tand\nnewlines, accents é, CJK 記憶, emoji 🙂 stay"
    assert printable(text) == text


def test_printable_shows_bidirectional_controls_that_would_reorder_the_line() -> None:
    # An override makes "invoice_\u202excod.exe" read as "invoice_exe.docx".
    assert printable("invoice_\u202excod.exe") == "invoice_\\u202excod.exe"
    assert printable("\u202a\u202b\u202c\u202d \u2066\u2067\u2068\u2069") == (
        "\\u202a\\u202b\\u202c\\u202d \\u2066\\u2067\\u2068\\u2069")
    # Right-to-left text itself and the zero-width marks do not reorder what follows.
    hebrew = "שלום, مرحبا \u200f\u200e"
    assert printable(hebrew) == hebrew


def test_the_console_keeps_its_own_colours_but_not_the_texts() -> None:
    out = io.StringIO()
    console = TerminalConsole(file=out, force_terminal=True, width=100, highlight=False)
    console.print(f"[red]alert[/red] {RED}")
    table = Table(show_header=False, box=None)
    table.add_row(f"name {RED}")
    console.print(table)
    shown = out.getvalue()
    # The only escape sequences are rich's own, from the markup: colour on, colour off.
    assert shown.count("\x1b") == 2 and "\x1b[31malert\x1b[0m" in shown
    assert shown.count("\\x1b[31mRED\\x1b[0m") == 2


def test_a_chat_shows_an_escape_sequence_it_stored_as_text(tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = tiermem(home, "chat", "--agent", "a", "--embedder", "hashing",
                   stdin=f"My name is {RED} Ana\n/core\n/recall Ana\n")
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout + done.stderr
    assert done.stdout.count("\\x1b[31mRED\\x1b[0m") >= 3  # the reply, /core and /recall
    with HierarchicalMemory(home / "agents" / "a", embedder=HashingEmbedder(),
                            read_only=True) as memory:
        assert [f.text for f in memory.facts()] == [f"User's name is {RED} Ana"]  # as given


def test_into_a_pipe_or_file_a_long_line_stays_one_line() -> None:
    hint = "embed them with `tiermem reindex --agent ops --embedder local` " * 3
    out = io.StringIO()
    TerminalConsole(file=out).print(hint.strip())
    assert out.getvalue() == hint.strip() + "\n"  # a command in it can be copied whole
    wrapped = io.StringIO()
    TerminalConsole(file=wrapped, soft_wrap=False, width=80).print(hint.strip())
    assert wrapped.getvalue().count("\n") > 1  # asked for explicitly, it still wraps


def test_a_dumb_terminal_is_as_wide_as_it_is() -> None:
    # TERM=dumb (Emacs's shell, an editor's console): rich takes every such terminal to be
    # 80 columns, so a 40-column one got lines and tables 80 wide.
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 20, 40, 0, 0))
    with os.fdopen(leader, "wb"), open(follower, "w", encoding="utf-8") as terminal:
        console = TerminalConsole(file=terminal, _environ={"TERM": "dumb"})
        assert console.is_dumb_terminal and console.size == (40, 20)
        assert console.color_system is None  # still no colours on a dumb terminal
        told = TerminalConsole(file=terminal, _environ={"TERM": "dumb", "COLUMNS": "50"})
        assert told.width == 50  # as Emacs's shell tells its programs

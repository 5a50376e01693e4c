"""A reply of many lines is laid out at one width read once: each read asks the terminal
its size, which cost more than laying out a short line (a reply of 20,000 lines took
seconds)."""

from __future__ import annotations

import io
from typing import Any

import pytest
from rich.console import ConsoleDimensions

from tiermem.agent.chat_help import reply_text
from tiermem.agent.terminal import TerminalConsole, escape


class SizeCountingConsole(TerminalConsole):
    """A terminal console that counts how often its size is read."""

    size_reads = 0

    @property
    def size(self) -> ConsoleDimensions:
        self.size_reads += 1
        return TerminalConsole.size.fget(self)  # type: ignore[attr-defined]

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        TerminalConsole.size.fset(self, new_size)  # type: ignore[attr-defined]


def _size_reads(reply: str, **options: Any) -> tuple[int, str]:
    console = SizeCountingConsole(file=io.StringIO(), force_terminal=True, width=40, **options)
    console.size_reads = 0
    laid_out = reply_text(console, escape(reply))
    return console.size_reads, laid_out.plain


@pytest.mark.parametrize("line", [
    "a", "  - an item of a list that is longer than the forty columns of this console",
    " " * 30 + "a line indented past the room its later lines leave"])
def test_the_width_is_read_as_often_for_a_thousand_lines_as_for_two(line: str) -> None:
    _, one = _size_reads(line)
    reads_for_two, two = _size_reads(f"{line}\n{line}")
    reads_for_many, many = _size_reads("\n".join([line] * 1000))
    assert reads_for_many == reads_for_two
    # Each line laid out as it is alone.
    assert (two, many) == ("\n".join([one] * 2), "\n".join([one] * 1000))

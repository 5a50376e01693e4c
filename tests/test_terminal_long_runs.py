"""A long run without spaces (a base64 blob, a hash, minified JSON) in what the chat
prints: highlighted around, never through, so a reply of any length prints in time
linear in it, and ordinary text keeps every colour rich gives it."""

from __future__ import annotations

import io
import re
from collections.abc import Callable

import pytest
from rich.console import Console
from rich.highlighter import ReprHighlighter
from rich.text import Text

from tiermem.agent.chat_help import indented_line, reply_text
from tiermem.agent.terminal import LONGEST_HIGHLIGHTED_RUN, TerminalConsole, escape

BLOB = "QUJD" * 5000  # 20 KB of base64, the run that hung the chat


class RecordingHighlighter(ReprHighlighter):
    """Rich's highlighter, noting every text it is given."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def highlight(self, text: Text) -> None:
        self.seen.append(text.plain)
        super().highlight(text)


def longest_run(texts: list[str]) -> int:
    return max((len(run) for text in texts for run in re.findall(r"\S+", text)), default=0)


PRINTS: dict[str, Callable[[Console, str], object]] = {
    "reply": lambda console, text: reply_text(console, escape(text)),
    "tool call line": lambda console, text: indented_line(
        console, f"[dim]  ↳ archival_memory_search({escape(text)}): 1 match[/dim]"),
    "plain string": lambda console, text: escape(text),
}


def printed_as(kind: str, text: str, soft_wrap: bool) -> tuple[list[str], str]:
    """The texts rich's highlighter is given, and what is printed, when the chat's
    console prints ``text`` as one of the ``PRINTS``."""
    highlighter = RecordingHighlighter()
    out = io.StringIO()
    console = TerminalConsole(file=out, width=80, force_terminal=True, soft_wrap=soft_wrap,
                              highlighter=highlighter)
    console.print(PRINTS[kind](console, text))
    assert highlighter.seen, "the text was not highlighted at all"
    return highlighter.seen, out.getvalue()


@pytest.mark.parametrize("soft_wrap", [False, True], ids=["terminal", "piped"])
@pytest.mark.parametrize("kind", PRINTS)
def test_the_highlighter_never_sees_a_long_run_and_the_run_is_printed_whole(
        kind: str, soft_wrap: bool) -> None:
    seen, printed = printed_as(kind, f"the key is {BLOB} (42 bytes)", soft_wrap)
    # Highlighting a run costs time growing with its length squared.
    assert longest_run(seen) <= LONGEST_HIGHLIGHTED_RUN
    shown = re.sub(r"\x1b\[[0-9;]*m|[\s│|]", "", printed)
    assert BLOB in shown


ORDINARY = ('Disk /var/log on 10.0.0.12 is 93% full (41.5 GB of 44 GB); run "du -sh *" '
            "there, see https://example.com/runbooks/disk-full, or call None of them.\n"
            "  - sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 ok")


@pytest.mark.parametrize("soft_wrap", [False, True], ids=["terminal", "piped"])
def test_an_ordinary_reply_is_printed_in_rich_s_colours_unchanged(soft_wrap: bool) -> None:
    shown = []
    for console_class in (Console, TerminalConsole):
        out = io.StringIO()
        console = console_class(file=out, width=80, force_terminal=True, soft_wrap=soft_wrap)
        console.print(reply_text(console, escape(ORDINARY)))
        shown.append(out.getvalue())
    assert shown[0] == shown[1]
    assert "\x1b[1;36m93\x1b[0m" in shown[1]  # a number in rich's colour


def test_text_around_a_long_run_keeps_its_colours() -> None:
    console = TerminalConsole(file=io.StringIO(), width=80, force_terminal=True)
    text = console.render_str(escape(f'got 42 "{BLOB}" from https://example.com/x'))
    styled = {(text.plain[span.start:span.end], str(span.style)) for span in text.spans}
    assert styled == {("42", "repr.number"), ("https://example.com/x", "repr.url")}

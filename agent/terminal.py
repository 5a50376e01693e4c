"""Text for a terminal: what users, models and stored memories wrote, shown and not obeyed.

A memory holds text from many hands: what a customer typed, what a model replied, a
pasted log. Printed raw, an escape sequence in it would drive the terminal of whoever
reads it later (recolour the screen, move the cursor, rewrite the window title, hide
the lines before it), and a bidirectional override would reverse what follows it.
``printable`` shows such characters as ``\\x1b``-style text; the stored text is not
changed, and JSON output escapes them by itself.

``TerminalConsole`` is a rich ``Console`` that applies it to every string it renders
(``print`` of a string, a table cell, a markup template filled with stored text), so
the chat's many print sites need no care of their own. Rich's own styling is added
after, so colours still work. What Ctrl-C cuts from a print is dropped: rich would
write all of it again with the next print.

Rich's highlighter (numbers, URLs, paths in colour) takes time quadratic in the length
of a run without spaces (a base64 blob, a long hash, minified JSON): a reply holding
one of 200 KB would hang the chat for minutes. ``TerminalConsole`` highlights around
such runs only, which keeps the cost linear in the text's length and every other
colour as rich gives it. Its pattern for tags (``<name ...>``) costs as much for every
"<" with no ">" after it, spaced or not: a reply full of comparisons or shell
redirections. Such a "<" can begin no tag, so it too reads as a blank, and no colour
rich gives changes.

Rich's markup parser takes time quadratic in the length of a run of backslashes that no
tag follows (a model repeating ``\\`` until its token limit): it is given such a run as
as many other characters, and the backslashes are put back in what it gives. Use
``escape`` (memory/text/markup.py, imported here), not rich's, for text a model or a user
wrote: rich's takes the same quadratic time, and what its markup shows is not always the
text (it drops a backslash before a "[" that opens no tag, as in ``\\[0-9]``, and shows a
trailing one twice).
"""

from __future__ import annotations

import contextlib
import os
import re
from typing import Any

from rich.console import Console, ConsoleDimensions, HighlighterType
from rich.text import Text

from tiermem.agent.interrupts import ctrl_c_held
from tiermem.memory.text.markup import escape as escape  # where the chat's modules take it

# C0 controls but tab and newline, DEL, and the C1 controls (0x9b opens a sequence alone).
# Then the bidirectional embeddings, overrides and isolates: printed, they reorder the
# text after them, so a stored "txt.exe" can read as "exe.txt" (Trojan Source).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _shown(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with every terminal control character shown as ``\\xNN`` (and every
    bidirectional control as ``\\uNNNN``)."""
    return _CONTROL.sub(lambda m: _shown(m.group()), text)


#: Runs without whitespace longer than this are left unhighlighted: the cost of
#: highlighting a run grows with its length squared, so capped it stays linear overall,
#: while a hash, a path or a URL of ordinary length keeps its colour.
LONGEST_HIGHLIGHTED_RUN = 100
_LONG_RUN = re.compile(rf"\S{{{LONGEST_HIGHLIGHTED_RUN + 1},}}")


def _unclosed_angles_blanked(text: str) -> str:
    """``text`` with every "<" after its last ">" read as a blank. Rich's tag pattern
    searches from each "<" to the text's end and back for a ">", so each such "<" costs
    time linear in the text's length; it can begin no tag, and no other of the patterns
    tells a "<" from a blank (both are neither word, digit nor part of a URL or path)."""
    after_last_close = text.rfind(">") + 1
    tail = text[after_last_close:]
    if "<" not in tail:
        return text
    return text[:after_last_close] + tail.replace("<", " ")


class _HighlightedInLinearTime:
    """``highlighter`` applied to a text whose long runs without whitespace, and whose
    "<" that begin no tag, read as blanks: each character keeps its offset, so the
    styles found fit the real text, and a long run itself is shown unstyled."""

    def __init__(self, highlighter: HighlighterType) -> None:
        self.highlighter = highlighter

    def __call__(self, text: str | Text) -> Text:
        plain = str(text)
        blanked = _LONG_RUN.sub(lambda run: " " * len(run.group()), plain)
        blanked = _unclosed_angles_blanked(blanked)
        if blanked == plain:
            return self.highlighter(text)
        highlighted = text.copy() if isinstance(text, Text) else Text(text)
        highlighted.spans.extend(self.highlighter(blanked).spans)
        return highlighted


#: A tag of rich's markup (a "[" and a name, then "]", perhaps escaped by backslashes
#: before it), else a long run of backslashes outside any tag. Tried from a run's first
#: backslash only: tried from each, as rich does, it costs a read to the run's end for each.
_TAG_OR_BACKSLASHES = re.compile(
    rf"(?<!\\)(?P<tag>\\*\[[a-z#/@][^[]*?\])|(?<!\\)\\{{{LONGEST_HIGHLIGHTED_RUN + 1},}}+")


#: The characters a long run of backslashes may be written as: the private use areas. Rich
#: puts no such character in what it renders (an emoji code gives an emoji and perhaps a
#: variant selector, U+FE0E or U+FE0F), so each one found afterwards was a backslash.
_STAND_INS = (range(0xE000, 0xF900), range(0xF0000, 0xFFFFE), range(0x100000, 0x10FFFE))


def _backslash_runs_stood_in(markup: str) -> tuple[str, str] | None:
    """``markup`` with each long run of backslashes outside its tags written as a
    private use character ``markup`` does not hold, and that character; None when it holds
    no long run, or every private use character (rich's own code, slower, then reads it).
    Rich's markup leaves such a run as it is and tells no one character from another
    there, but for a backslash before a "[", which markup drops: that one is kept."""
    if "\\" * (LONGEST_HIGHLIGHTED_RUN + 1) not in markup:
        return None
    held = set(markup)
    stand_in = next((chr(code) for codes in _STAND_INS for code in codes
                     if chr(code) not in held), None)
    if stand_in is None:
        return None

    def stood_in(found: re.Match[str]) -> str:
        if found["tag"]:
            return found.group()
        if markup.startswith("[", found.end()):
            return stand_in * (len(found.group()) - 1) + "\\"
        return stand_in * len(found.group())

    return _TAG_OR_BACKSLASHES.sub(stood_in, markup), stand_in


class TerminalConsole(Console):
    """A rich console that never passes a control character of the text it shows.

    Writing to a pipe or a file, it does not wrap lines (unless told ``soft_wrap=False``):
    a hint's command split over two lines at column 80 cannot be copied from a log. It
    turns no ``:name:`` into an emoji (unless told ``emoji=True``): a reply's ``a[:smile:]``
    or ``:thumbs_up:`` is shown as written."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("emoji", False)
        super().__init__(*args, **kwargs)
        if "soft_wrap" not in kwargs and not self.is_terminal:
            self.soft_wrap = True
        #: Ctrl-C cut a print short, and the line that says so is not yet written.
        self.cut = False

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        if exc_type is not None and issubclass(exc_type, KeyboardInterrupt) \
                and self._buffer_index == 1:
            # Ctrl-C while a print was laid out: rich would still write what was ready.
            del self._buffer[:]
            self.cut = True
        super().__exit__(exc_type, exc_value, traceback)

    def _check_buffer(self) -> None:
        try:
            super()._check_buffer()
        except KeyboardInterrupt:
            # Rich empties its buffer only once written whole: kept, the next print would
            # write the cut block again, from its start.
            del self._buffer[:]
            self.cut = True
            _drop_unwritten(self.file)
            raise

    def end_cut(self) -> bool:
        """Whether Ctrl-C cut a print short since the last call. If it did, the line it
        left half written is ended, and a colour it left on is turned off, so that what
        is printed next starts on a line of its own."""
        if not self.cut:
            return False
        self.cut = False
        with self._lock:
            # ESC also ends an escape sequence the cut left unfinished.
            self.file.write("\x1b[0m\n" if self.color_system else "\n")
            self.file.flush()
        return True

    def render_str(self, text: str, *, highlighter: HighlighterType | None = None,
                   **options: Any) -> Text:
        linear = _HighlightedInLinearTime(highlighter or self.highlighter)
        text = printable(text)
        markup = options.get("markup")
        stood = _backslash_runs_stood_in(text) \
            if markup or (markup is None and self._markup) else None
        if stood is None:
            return super().render_str(text, **options, highlighter=linear)
        # A stood-in run lies within a run without whitespace left unhighlighted, so the
        # highlighter sees the same blanks either way.
        stood_in, stand_in = stood
        rendered = super().render_str(stood_in, **options, highlighter=linear)
        rendered.plain = rendered.plain.replace(stand_in, "\\")
        return rendered

    @property
    def size(self) -> ConsoleDimensions:
        """The terminal's size, also for a dumb one (TERM=dumb: Emacs's shell, an editor's
        console). Rich takes any dumb terminal to be 80 by 25: on a narrower one, lines laid
        out for 80 columns would wrap back to column 0 and a table's rows break apart."""
        dims = Console.size.fget(self)  # type: ignore[attr-defined]
        if not self.is_dumb_terminal or (self._width is not None and self._height is not None):
            return dims
        width, height = _terminal_size(self.file)
        return ConsoleDimensions(self._width or width or dims.width,
                                 self._height or height or dims.height)

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        Console.size.fset(self, new_size)  # type: ignore[attr-defined]


def _drop_unwritten(stream: Any) -> None:
    """Discard the bytes ``stream``'s own buffer still holds after Ctrl-C cut a write
    short. A write that blocks on a slow terminal or a full pipe keeps what it had not
    sent there (up to 8 KB), and the next write, the note that output was cut, would
    send it after the press. Python can empty that buffer only by writing it, so it is
    written while the descriptor points at the null device."""
    try:
        descriptor = stream.fileno()
        kept = os.dup(descriptor)
    except (AttributeError, ValueError, OSError):
        return  # held in memory (a StringIO): nothing waits for a terminal
    # A second press meanwhile must not leave the descriptor on the null device.
    with contextlib.suppress(KeyboardInterrupt, OSError, ValueError), ctrl_c_held():
        try:
            sink = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(sink, descriptor)
            finally:
                os.close(sink)
            stream.flush()
        finally:
            os.dup2(kept, descriptor)
            os.close(kept)


def _terminal_size(file: Any) -> tuple[int | None, int | None]:
    """The size of the terminal ``file`` writes to, else of the one standard input, output
    or error is (rich looks at those), else ``(None, None)``."""
    descriptors: list[int] = []
    with contextlib.suppress(AttributeError, ValueError, OSError):
        descriptors.append(file.fileno())
    for descriptor in [*descriptors, 0, 1, 2]:
        try:
            size = os.get_terminal_size(descriptor)
        except (ValueError, OSError):
            continue
        return size.columns or None, size.lines or None
    return None, None


#: The width of a report written to a file or a pipe (without COLUMNS): wide enough for
#: every table at its natural width, which rich would otherwise squeeze into 80 columns.
FILE_WIDTH = 160


def report_console(json_on_stdout: bool, wide_when_not_a_terminal: bool = False
                   ) -> TerminalConsole:
    """Where a command's human report goes: standard error when standard output carries
    its JSON; ``wide_when_not_a_terminal`` for reports of wide tables."""
    console = TerminalConsole(stderr=json_on_stdout)
    if wide_when_not_a_terminal and not console.is_terminal and "COLUMNS" not in os.environ:
        console = TerminalConsole(stderr=json_on_stdout, width=FILE_WIDTH)
    return console


class Progress:
    """A command's progress lines, shown through ``show`` until the reader of standard
    output goes away (``| head``); the work goes on without them, so that a ``--json
    PATH`` file is still written. ``gone`` holds the failed write, for the command to
    raise once the file is written (the exit status of a closed pipe, 141)."""

    def __init__(self, show: Any) -> None:
        self.show = show
        self.gone: BrokenPipeError | None = None

    def __call__(self, *args: Any) -> None:
        if self.gone is not None:
            return
        try:
            self.show(*args)
        except BrokenPipeError as exc:
            self.gone = exc
        except SystemExit as exc:
            # rich meets a closed pipe by pointing standard output at /dev/null and raising
            # SystemExit(1) from the BrokenPipeError.
            if not isinstance(exc.__context__, BrokenPipeError):
                raise
            self.gone = exc.__context__

    def finish(self, show: Any, *args: Any) -> None:
        """Show the final report, or raise the closed pipe the progress met."""
        if self.gone is not None:
            raise self.gone
        show(*args)

"""Text read from standard input, never more of it at once than one message may hold.

A line is read with a size limit: input without a newline (``< /dev/zero``, a
runaway producer) would otherwise be gathered whole before any check could
refuse it, growing until the machine runs out of memory, inside one C call that
Ctrl-C cannot interrupt. A line past the limit is reported as an
``OverlongLine`` at once, then the rest of it is read and dropped in small
chunks up to its newline, so the next line is read as usual. Blanks are no part of
what the chat reads: a line that only they took past the limit is read without them.
Nor are the marks that show nothing (a byte order mark, as an editor may write at the
start of a file, a zero-width space): a line of only such marks is blank, and "/exit"
after one is a command.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, TextIO

from tiermem.memory.text.padding import unpadded as unpadded  # the chat's lines read so
from tiermem.memory.validation import MAX_TEXT_CHARS

#: How much of an overlong line is read per call while it is dropped.
_DISCARD_CHUNK = 64 * 1024


@dataclass(frozen=True)
class OverlongLine:
    """A line of input longer than a message may be; it was not sent."""

    number: int
    start: str  # its first characters from its first word, so a script can tell which it was
    limit: int
    word_cut: bool = False  # whether its first word goes on past ``start``

    @property
    def message(self) -> str:
        return (f"line {self.number} of the input is over {self.limit:,} characters, the "
                f"longest message, and was not sent; split it into smaller messages")


def decoded_lines(stream: IO[bytes], warn: TextIO,
                  limit: int = MAX_TEXT_CHARS) -> Iterator[str | OverlongLine]:
    """The lines of a byte stream as text, each read with at most ``limit + 2`` characters
    held (the line ending may be two); a longer line is an ``OverlongLine``. Bytes that
    are not UTF-8 become U+FFFD, and ``warn`` is told which line held them (the message
    is sent all the same)."""
    # surrogateescape keeps a bad byte as one character, so a line is split and measured
    # first and its bytes are recovered exactly to say where the bad ones were.
    text = io.TextIOWrapper(stream, encoding="utf-8", errors="surrogateescape", newline="\n")
    try:
        number = 0
        while line := text.readline(limit + 2):
            number += 1
            if len(line) > limit + 1 and not line.endswith("\n"):
                rest = ""
                if len(line.strip()) <= limit:  # only blanks past the limit so far
                    while ((rest := text.readline(_DISCARD_CHUNK)) and not rest.strip()
                           and not rest.endswith("\n")):
                        pass
                    if not rest.strip():  # the chat reads a line without its blanks
                        yield _checked(line.rstrip().encode("utf-8", "surrogateescape"),
                                       number, warn)
                        continue
                # From its first word, as a line is read (a slash command indented is one),
                # and its bytes that are not UTF-8 as U+FFFD, as a line sent has them: a
                # lone surrogate is no text a --json record may hold.
                begun = line.lstrip()
                start = begun[:80].encode("utf-8", "surrogateescape").decode(
                    "utf-8", "replace")
                word = (begun[:81].split(maxsplit=1) or [""])[0]
                yield OverlongLine(number, start, limit, len(word) > 80)
                while not rest.endswith("\n") and (rest := text.readline(_DISCARD_CHUNK)):
                    pass
                continue
            yield _checked(line.encode("utf-8", "surrogateescape"), number, warn)
    finally:
        # The stream is the caller's (standard input): leave it open.
        text.detach()


def _checked(raw: bytes, number: int, warn: TextIO) -> str:
    text, warning = _decoded(raw, f"line {number} of the input")
    if warning:
        warn.write(f"tiermem: {warning}\n")
        warn.flush()
    return text


def typed_text(line: str) -> tuple[str, str | None]:
    """A line typed at the prompt, with the bytes that were not UTF-8 as U+FFFD, and the
    warning to give when there were any (as for piped input), else None.

    The terminal's reader (prompt-toolkit) keeps such a byte as a lone surrogate
    (surrogateescape), which memory refuses to store."""
    try:
        line.encode("utf-8")
        return line, None
    except UnicodeEncodeError:
        pass
    try:
        raw = line.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate no byte became: only its place can be told
        raw = line.encode("utf-8", "surrogatepass")
    return _decoded(raw, "the line typed")


def _decoded(raw: bytes, where: str) -> tuple[str, str | None]:
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return raw.decode("utf-8", errors="replace"), (
            f"{where} is not valid UTF-8 (byte {exc.start + 1}); it was sent with U+FFFD in "
            "place of the bytes that are not")


def read_bounded(stream: IO[bytes], limit: int) -> str | None:
    """All of ``stream`` as text (bytes that are not UTF-8 as U+FFFD) when it holds at
    most ``limit`` characters, else None: only the first ``limit + 1`` are read."""
    text = io.TextIOWrapper(stream, encoding="utf-8", errors="replace")
    try:
        read = text.read(limit + 1)
    finally:
        text.detach()
    return read if len(read) <= limit else None

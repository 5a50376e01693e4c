"""The ends of a typed line that show nothing: blanks, and the marks of no width (a byte
order mark, as an editor may write at the start of a file, a zero-width space, joiner,
non-joiner or word joiner).

A line is what is left between them: the chat reads "\\ufeff/exit" as /exit, and the prompt
history finds a line it must take out ("\\u200b/forget ...") by the text it holds.
"""

from __future__ import annotations

import re

#: The marks of no width, as a class of a regular expression holds them.
NO_WIDTH = "\ufeff\u200b-\u200d\u2060"
_PADDING = re.compile(rf"^[\s{NO_WIDTH}]+|[\s{NO_WIDTH}]+$")
_MARKS = re.compile(f"[{NO_WIDTH}]")


def unpadded(line: str) -> str:
    """``line`` without the blanks and the marks that show nothing at its ends."""
    return _PADDING.sub("", line)


def unmarked(text: str) -> str:
    """``text`` without the marks of no width anywhere in it (a word joiner within a word)."""
    return _MARKS.sub("", text)


def marks_shown(text: str) -> str:
    """``text`` with each mark of no width written as its code (``\\u2060``), so a message
    echoing it shows what it holds ("/core\\u2060x", not "/corex")."""
    return _MARKS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)

"""A path (or another name a user gave) as a message shows it: as typed when it is plain,
quoted with its odd characters escaped when it is not.

A path may hold a newline, an escape sequence, a bidirectional override or bytes that
are no UTF-8 (kept by Python as lone surrogates). Printed raw in a one-line error, the
newline splits the line, the escape drives the terminal, the override makes the path read
otherwise, and a surrogate cannot be written to a UTF-8 stream at all. ``shown_path``
leaves an ordinary path as it is, so it can be read and copied, and gives any other as a
Python string literal (``'a\\nb'``), in which every such character is escaped.
"""

from __future__ import annotations

from pathlib import PurePath


def shown_path(path: str | PurePath) -> str:
    """``path`` as typed when every character is printable and it has no surrounding
    space, else quoted with those characters escaped (``repr``)."""
    text = str(path)
    if text.isprintable() and text == text.strip():
        return text
    return repr(text)


__all__ = ["shown_path"]

"""A path the user gave, with its leading ``~`` expanded as a shell expands it.

Light on purpose (only ``os`` and ``pathlib``): the command line parses its options
with it, before any part of the memory engine is loaded.
"""

from __future__ import annotations

import os
from pathlib import Path


def expanded(path: str | os.PathLike[str]) -> Path:
    """``path`` with a leading ``~`` or ``~USER`` expanded to that home; as given when no
    such home is known (``~nouser/x``) or the name cannot be one (it holds a NUL byte), as
    a shell leaves it, so what opens or writes it names what is missing. Only a ``~`` that
    opens the text given is one: ``./~/x`` is a directory ``~`` here, made absolute, as
    pathlib reads it as ``~/x``, which expanded again would be the home's."""
    if not os.fspath(path).startswith("~"):
        given = Path(path)
        return given.absolute() if given.parts[:1] and given.parts[0][:1] == "~" else given
    try:
        return Path(path).expanduser()
    except (RuntimeError, ValueError):
        return Path(path)


def unknown_home(path: str | os.PathLike[str]) -> str | None:
    """Why ``path`` names no place to create, when it begins with ``~USER`` for no such
    user (or ``~`` for a user without a home) and no directory so named is here; else
    None. Left as given, it would be made as a directory named ``~USER`` in the working
    directory, where no one looks for it."""
    first = os.fspath(path).split("/", 1)[0]
    if not first.startswith("~") or expanded(first) != Path(first) or Path(first).exists():
        return None
    if first == "~":
        return "~ names no home: HOME is not set, and this user has none"
    return f"{first} names no home: there is no user {first[1:]!r} here"

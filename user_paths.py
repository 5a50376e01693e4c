"""A path the user gave, with its leading ``~`` expanded as a shell expands it.

Light on purpose (only ``os`` and ``pathlib``): the command line parses its options
with it, before any part of the memory engine is loaded.
"""

from __future__ import annotations

import os
from pathlib import Path


def expanded(path: str | os.PathLike[str]) -> Path:
    """``path`` with a leading ``~`` or ``~USER`` expanded to that home; as given when no
    such home is known (``~nouser/x``, or ``~/x`` with HOME empty or relative) or the name
    cannot be one (it holds a NUL byte), as a shell leaves it, so what opens or writes it
    names what is missing. Only a ``~`` that opens the text given is one: ``./~/x`` is a
    directory ``~`` here, made absolute, as pathlib reads it as ``~/x``, which expanded
    again would be the home's."""
    if not os.fspath(path).startswith("~"):
        given = Path(path)
        return given.absolute() if given.parts[:1] and given.parts[0][:1] == "~" else given
    if home_unusable() is not None and os.fspath(path).split("/", 1)[0] == "~":
        return Path(path)
    try:
        return Path(path).expanduser()
    except (RuntimeError, ValueError):
        return Path(path)


#: The variable that moves every agent home (and ``tiermem pg``'s server) elsewhere.
HOME_VARIABLE = "TIERMEM_HOME"


class NoRootError(ValueError):
    """Where tiermem keeps its files names no directory: ``TIERMEM_HOME``, or ``HOME`` for
    the default ``~/.tiermem``, is set but empty."""


def root_variable() -> str | None:
    """``$TIERMEM_HOME``, None when it is unset; set but empty (or only spaces) it is
    refused (``NoRootError``). ``TIERMEM_HOME=$DIR`` with ``DIR`` unset means some
    directory, not the user's real agents in ``~/.tiermem``, which a forget, a restore
    --replace or a config change would then act on."""
    given = os.environ.get(HOME_VARIABLE)
    if given is not None and not given.strip():
        raise NoRootError(
            f"{HOME_VARIABLE} is set but empty (an unset shell variable?); set it to the "
            f"directory to keep agent homes in, or unset it (`unset {HOME_VARIABLE}`) to "
            f"use ~/.tiermem")
    return given


def default_root() -> Path:
    """``~/.tiermem``, where tiermem keeps its files when ``TIERMEM_HOME`` is unset;
    ``NoRootError`` when HOME is set but empty, as ``~`` then names no home, or unset for
    a user with no home."""
    if empty_home():
        raise NoRootError(
            f"HOME is set but empty, so ~/.tiermem, where agent homes are kept, names no "
            f"directory; set {HOME_VARIABLE} to the directory to keep them in, or set HOME")
    if (relative := home_unusable()) is not None:
        raise NoRootError(
            f"HOME is {relative}, so ~/.tiermem, where agent homes are kept, would be made "
            f"under the working directory; set HOME to an absolute path, or set "
            f"{HOME_VARIABLE} to the directory to keep them in")
    try:
        return Path.home() / ".tiermem"
    except (RuntimeError, KeyError):  # no HOME, and no account for this user (a container)
        raise NoRootError(
            f"HOME is not set, and this user has no home, so ~/.tiermem, where agent homes "
            f"are kept, names no directory; set {HOME_VARIABLE} to the directory to keep "
            f"them in, or set HOME") from None


def tiermem_root() -> Path:
    """Where tiermem keeps its files: ``$TIERMEM_HOME``, else ``~/.tiermem``;
    ``NoRootError`` when either variable is set but empty, or ``TIERMEM_HOME`` names no
    place to create (``unknown_home``)."""
    given = root_variable()
    if given is None:
        return default_root()
    if (problem := unknown_home(given)) is not None:
        raise NoRootError(f"{HOME_VARIABLE} is {given}, but {problem}; set it to the "
                          f"directory to keep agent homes in")
    return expanded(given)


def empty_home() -> bool:
    """Whether HOME is set to nothing (or only blanks: an unset shell variable given, as in
    ``HOME=$H``): ``~`` then names no home, where Python would read it as ``/``."""
    home = os.environ.get("HOME")
    return home is not None and not home.strip()


def home_unusable() -> str | None:
    """What HOME is when ``~`` cannot be read as it: set but empty, or a relative path
    (``HOME=rel``), which Python would read as a directory under the working directory,
    changing with it; None when HOME is absolute or unset."""
    home = os.environ.get("HOME")
    if home is None:
        return None
    if not home.strip():
        return "set but empty"
    return None if os.path.isabs(home) else f"{home!r}, a relative path"


def unknown_home(path: str | os.PathLike[str]) -> str | None:
    """Why ``path`` names no place to create, else None: it begins with ``~USER`` for no
    such user (or ``~`` for a user without a home) and no directory so named is here, so
    left as given it would be made as a directory ``~USER`` in the working directory, where
    no one looks for it; or it is ``./~/h``, the directory ``~`` here, which is not there
    while the home's ``~/h`` is, so an agent home kept there is not left for a new, empty
    one."""
    text = os.fspath(path)
    first = text.split("/", 1)[0]
    if not text.startswith("~"):
        return home_elsewhere(text)
    if expanded(first) != Path(first) or Path(first).exists():
        return None
    if first == "~":
        return "~ names no home: HOME is " + (
            home_unusable() or "not set, and this user has none")
    return f"{first} names no home: there is no user {first[1:]!r} here"


def home_elsewhere(path: str | os.PathLike[str]) -> str | None:
    """Why ``path`` (``./~/h``, the directory ``~`` here) names no place to create, when it
    is not there while the home's ``~/h`` is; else None (also for ``./~/h`` when HOME is
    empty or relative, as ``~/h`` then names no home; ``~bob/h`` names bob's all the same)."""
    given = Path(path)
    if os.fspath(path).startswith("~") or not given.parts or given.parts[0][:1] != "~":
        return None
    if given.parts[0] == "~" and home_unusable() is not None:  # ~/h is then no choice
        return None
    here = given.absolute()
    try:
        home = given.expanduser()
    except (RuntimeError, ValueError):
        return None
    if here.exists() or home == given or not home.exists():
        return None
    return (f"{here} (the directory {given.parts[0]} here) does not exist, while {given} "
            f"({home}) does; give {given} to use that one, or create {here}")

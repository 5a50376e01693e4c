"""Agent homes: one directory per agent under ``$TIERMEM_HOME`` (default ``~/.tiermem``).

A home holds the agent's whole memory (the database, its ``-wal`` and ``-shm``
files, the FAISS indexes and their sidecars, the writer lock), so it is kept
private to its user: the directory 0700, every file in it 0600. Files are
created under a 0077 umask while a home is open (SQLite gives ``-wal`` and
``-shm`` the database's mode), and a home created before that is tightened
the next time it is opened.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

from tiermem.memory.errors import InvalidInputError
from tiermem.memory.store.sqlite import DB_FILE
from tiermem.memory.validation import validate_agent_name
from tiermem.user_paths import (
    HOME_VARIABLE,
    NoRootError,
    root_variable,
    tiermem_root,
)

DEFAULT_AGENT = "default"
#: The bits a private home and its files must not have: any access by group or others.
SHARED_BITS = 0o077


class NoSuchAgentError(InvalidInputError):
    """An inspection or maintenance command named an agent that has no home."""


class EmptyHomeVariableError(InvalidInputError):
    """``TIERMEM_HOME`` is set to nothing: a usage error, not a quiet ``~/.tiermem``."""


class HomeNotDirectoryError(InvalidInputError):
    """The root of all agent homes exists as something other than a directory, or is none
    that may be created (``~nouser/h``)."""


class HomeNotAccessibleError(InvalidInputError):
    """A directory on the way to an agent's memory that this user may not read or enter."""


def home_variable() -> str | None:
    """``$TIERMEM_HOME``, None when it is unset; set but empty it is refused
    (``user_paths.root_variable``)."""
    try:
        return root_variable()
    except NoRootError as exc:
        raise EmptyHomeVariableError(str(exc)) from None


def tiermem_home() -> Path:
    """The root of all agent homes; ``$TIERMEM_HOME`` overrides ``~/.tiermem``
    (``EmptyHomeVariableError`` when it is set but empty, ``HomeNotDirectoryError`` when it
    is a file, or HOME is set but empty). Checked here, so every command refuses a file
    alike rather than one saying it holds no agents and the next failing to create one in
    it."""
    given = home_variable()
    try:
        root = tiermem_root()
    except NoRootError as exc:
        raise HomeNotDirectoryError(str(exc)) from None
    try:
        exists = root.exists()
    except PermissionError:  # a directory above it this user may not enter
        raise _not_accessible(root) from None
    if exists and not root.is_dir():
        if given is not None:
            raise HomeNotDirectoryError(
                f"{HOME_VARIABLE} is {root}, which is not a directory; set it to the "
                f"directory to keep agent homes in")
        raise HomeNotDirectoryError(
            f"{root}, where agent homes are kept, is not a directory; move it away, or set "
            f"{HOME_VARIABLE} to the directory to keep them in")
    _refuse_unreadable(root)
    return root


def agent_home(name: str) -> Path:
    """The directory of agent ``name``; the name is validated so it cannot escape the root.
    Each directory of the path that exists must be readable (``HomeNotAccessibleError``), so
    that every command says which one to fix rather than failing on a file inside it."""
    home = tiermem_home() / "agents" / validate_agent_name(name)
    _refuse_unreadable(home.parent)
    _refuse_unreadable(home)
    return home


def _refuse_unreadable(directory: Path) -> None:
    if directory.is_dir() and not os.access(directory, os.R_OK | os.X_OK):
        raise _not_accessible(directory)


def _not_accessible(directory: Path) -> HomeNotAccessibleError:
    return HomeNotAccessibleError(
        f"this user may not read {directory} (permission denied); give it read and search "
        f"access to that directory (chmod), or set {HOME_VARIABLE} to a directory of its own")


def agent_names() -> list[str]:
    """The agents that have a memory, sorted."""
    return _agent_homes()[0]


def _agent_homes() -> tuple[list[str], list[str]]:
    """The agents that have a memory, and the directories of the agent homes this user may
    not enter (which may hold one, so a listing names them rather than leaving them out),
    each sorted."""
    root = tiermem_home() / "agents"
    if not root.is_dir():
        return [], []
    holding, closed = [], []
    for home in sorted(root.iterdir()):
        if home.is_dir() and not os.access(home, os.R_OK | os.X_OK):
            closed.append(str(home))
        elif _holds_memory(home):
            holding.append(home.name)
    return holding, closed


def _holds_memory(home: Path) -> bool:
    try:
        return (home / DB_FILE).is_file()
    except PermissionError:  # an agent home this user may not enter: none of its agents
        return False


def existing_agent_home(name: str) -> Path:
    """The home of agent ``name``, which must already hold a memory (nothing is created)."""
    home = agent_home(name)
    if (home / DB_FILE).is_file():
        return home
    holding, closed = _agent_homes()
    raise no_such_agent(name, str(tiermem_home()), holding, unreadable=closed)


def no_such_agent(name: str, where: str, names: list[str], store_flag: str = "", *,
                  unreadable: list[str] | None = None) -> NoSuchAgentError:
    """The error for agent ``name`` missing from ``where``, listing the ``names`` there and
    the ``unreadable`` agent home directories, whose agents this user cannot tell; ``store_flag``
    (``--store DSN``) goes into the command it suggests."""
    known = [f"agents: {', '.join(names)}"] if names else []
    if unreadable:
        homes, them = (("agent home", "it") if len(unreadable) == 1 else
                       ("agent homes", "them"))
        known.append(f"this user may not read the {homes} {', '.join(unreadable)}, which "
                     f"may hold agents; give {them} read and search access (chmod) to use "
                     f"{them}")
    if not known:
        known.append(f"no agents yet; `tiermem chat{store_flag} --agent {name}` creates one")
    return NoSuchAgentError(f"no agent named {name!r} in {where} ({'; '.join(known)})")


@contextlib.contextmanager
def private_files() -> Iterator[None]:
    """Files and directories created inside the block are readable by their owner only."""
    previous = os.umask(SHARED_BITS)
    try:
        yield
    finally:
        os.umask(previous)


def make_private(home: Path) -> tuple[list[Path], list[Path]]:
    """Remove group and other access from ``home`` and everything in it; the paths changed,
    and those left open to others because they are hard links (a file with other names,
    whose mode is theirs too: tightening it here would change it there).

    Paths this user cannot change (another user's home opened read-only) are left alone.
    """
    changed: list[Path] = []
    linked: list[Path] = []
    if not home.is_dir():
        return changed, linked
    for path in (home, *sorted(home.rglob("*"))):
        try:
            info = path.lstat()
        except OSError:
            continue  # removed meanwhile
        if stat.S_ISLNK(info.st_mode) or not info.st_mode & SHARED_BITS:
            continue
        if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
            linked.append(path)
            continue
        with contextlib.suppress(OSError):
            os.chmod(path, stat.S_IMODE(info.st_mode) & ~SHARED_BITS)
            changed.append(path)
    return changed, linked


@contextlib.contextmanager
def private_home(home: Path, note: Callable[[str], None], *,
                 reading: bool = False) -> Iterator[Path]:
    """Use ``home`` with private file modes, tightening (and telling ``note``) a home made
    before homes were private. A command ``reading`` it tightens only a home this user
    owns and may write: one its owner made read-only (shared 0555) or another user's is
    someone's choice, which a look at it must not undo."""
    with private_files():
        changed, linked = (make_private(home) if not reading or _owned_for_writing(home)
                           else ([], []))
        if changed:
            note(f"made {home} private to this user (took group and other access away "
                 f"from it and its files; the owner's is as it was); it was readable by "
                 f"other local users")
            # Said with that note only: once the home is private, no one else reaches a
            # linked file through it, and a backup's links are no reason to warn each time.
            for path in linked:
                if path.name in _refused_when_linked(reading):
                    continue  # opening it says the same, and stops
                quoted = shlex.quote(str(path))
                note(f"left the mode of {path} as it was: it is a hard link (a backup made "
                     f"with `cp -al`, say), and its mode is the file's under its other names "
                     f"too; others can read it only there. To make it private, give it a file "
                     f"of its own (`cp -p {quoted} {quoted}.own && mv {quoted}.own {quoted}`)")
        yield home


def _refused_when_linked(reading: bool) -> tuple[str, ...]:
    """The files of a home the store refuses to open as hard links, with the same advice
    (memory/store/sqlite/connection.py): the -wal and -shm, and to write, the database."""
    sidecars = (f"{DB_FILE}-wal", f"{DB_FILE}-shm")
    return sidecars if reading else (DB_FILE, *sidecars)


def _owned_for_writing(home: Path) -> bool:
    """Whether this user owns ``home`` and its owner may write in it."""
    try:
        info = home.stat()
    except OSError:
        return False
    return info.st_uid == os.geteuid() and bool(info.st_mode & stat.S_IWUSR)

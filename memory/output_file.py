"""Report and snapshot files: checked before the work that fills them, written whole or not at all.

A report is written to a temporary file in the target's directory, synced,
then renamed over the target, so a reader (or a crash) sees the old file or
the new one, never half of one. Because a report can take minutes to compute,
callers check the path with ``check_writable`` first: a typo in a directory
name should fail at once, not after the work is done.

A path that exists and is not a regular file (``/dev/stdout``, a named pipe)
cannot be replaced by a rename; it is written in place.

A file holding what a memory holds (a snapshot, a report quoting facts) is written
``private``: readable by this user only, as the memory's own files are, whatever the
umask and whatever mode a file it replaces had.
"""

from __future__ import annotations

import contextlib
import errno
import glob
import json
import os
import secrets
import stat
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tiermem.memory.errors import TiermemError
from tiermem.memory.process_check import process_alive
from tiermem.user_paths import expanded


class OutputPathError(TiermemError):
    """A report or snapshot cannot be written where asked; ``reason`` says why."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"cannot write {path}: {reason}")

    def __reduce__(self) -> tuple[Any, ...]:
        # By its parts: the default rebuilds an exception from its message alone.
        return (type(self), (self.path, self.reason))


#: Files whose directory holds a store: an agent home's database, a PostgreSQL data
#: directory's version file. Nothing else is written there. (The first is the SQLite
#: store's DB_FILE, written out: importing that package would load FAISS for every report.)
PG_MARKER = "PG_VERSION"
STORE_MARKERS = ("memory.sqlite3", PG_MARKER)


def check_writable(path: Path) -> None:
    """Raise OutputPathError unless ``path`` can be created or replaced by this process."""
    if "\0" in str(path):  # no system call takes it, so each check below would fail
        raise OutputPathError(path, "a file name cannot hold a NUL byte; remove it")
    try:
        _check_writable(path)
    except OSError as exc:  # a name too long, a directory not searchable
        raise OutputPathError(path, exc.strerror or str(exc)) from None


def _check_writable(path: Path) -> None:
    parent = path.parent
    _refuse_store_directory(path)
    if path.is_dir():
        raise OutputPathError(path, "it is a directory; give a file name")
    if not parent.exists():
        raise OutputPathError(path, f"the directory {parent} does not exist; create it first")
    if not parent.is_dir():
        raise OutputPathError(path, f"{parent} is not a directory")
    if path.exists() and not stat.S_ISREG(path.stat().st_mode):
        if not os.access(path, os.W_OK):
            raise OutputPathError(path, "permission denied")
        return  # a device or pipe, written in place
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputPathError(path, f"permission denied (the directory {parent} is not "
                                    f"writable by this user)")
    if path.exists() and not os.access(path, os.W_OK):
        raise OutputPathError(path, "permission denied (the file is read-only)")


def _refuse_store_directory(path: Path) -> None:
    """A report written over a memory's own file (its database, an index, the lock)
    would destroy what it holds, so a directory holding a store takes no report."""
    try:
        # The parent, as the report is renamed into it: a symlink named PATH is replaced,
        # not followed, and a symlinked directory is the directory it points to.
        directory = path.parent.resolve()
    except (OSError, RuntimeError):  # a symlink loop: left to the checks that follow
        return
    for marker in STORE_MARKERS:
        if (directory / marker).is_file():
            raise OutputPathError(
                path, f"{directory} holds a memory's files ({marker}), which a report there "
                      f"could overwrite; write it to another directory")
    # Every directory below a PostgreSQL data directory is the server's (base/, global/).
    for above in directory.parents:
        if (above / PG_MARKER).is_file():
            raise OutputPathError(
                path, f"{directory} is inside the PostgreSQL data directory {above}, whose "
                      f"files a report there could overwrite; write it to another directory")


#: The mode of a ``private`` file (module docstring).
PRIVATE_MODE = 0o600


def write_atomic(path: Path, text: str, private: bool = False) -> None:
    """Replace ``path`` with ``text`` (UTF-8) in one rename; OutputPathError if it cannot.
    A ``private`` file is readable by this user only (module docstring)."""
    write_atomic_pieces(path, (text,), private)


def write_atomic_pieces(path: Path, pieces: Iterable[str], private: bool = False) -> None:
    """``write_atomic`` of the text ``pieces`` make, joined, written as they come: a
    snapshot of any size is never held whole. Whatever stops the pieces (an error, Ctrl-C)
    leaves ``path`` as it was and no temporary file. Once the new file is in place, a
    failure to sync its directory is a warning on standard error, not an error."""
    check_writable(path)
    if path.exists() and not stat.S_ISREG(path.stat().st_mode):
        try:
            with path.open("wb") as stream:
                for piece in pieces:  # a pipe or device: its mode is not the file's to set
                    stream.write(piece.encode("utf-8"))
        except OSError as exc:
            raise OutputPathError(path, exc.strerror or str(exc)) from None
        return
    try:
        # A new report is created as open() creates a file, so the umask gives its mode; a
        # replaced one keeps its mode, and a private one is the owner's whatever the umask.
        mode = PRIVATE_MODE if private else (
            stat.S_IMODE(path.stat().st_mode) if path.exists() else None)
        fd, tmp = _new_temporary(path, 0o666 if mode is None else PRIVATE_MODE)
    except OSError as exc:
        raise OutputPathError(path, exc.strerror or str(exc)) from None
    try:
        with os.fdopen(fd, "wb", buffering=_BUFFER) as stream:
            for piece in pieces:
                stream.write(piece.encode("utf-8"))
            stream.flush()
            os.fsync(stream.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(exc, OSError):
            raise OutputPathError(path, exc.strerror or str(exc)) from None
        raise
    try:
        fsync_path(path.parent)
    except OSError as exc:
        # The new file is in place and whole, and reads back as such: failing here would
        # tell a user (and a script, by the exit status) that it was not written, and send
        # them to write it again into the same directory, failing the same way. What is not
        # sure is its directory entry on disk, which is what a warning says.
        sys.stderr.write(f"tiermem: warning: {path} is written, but its directory could not "
                         f"be synced ({exc.strerror or exc}), so a power loss soon could "
                         f"leave the old file or none in its place\n")


#: Bytes gathered before each write to a file: a snapshot comes in one piece a row.
_BUFFER = 1 << 20


def _new_temporary(path: Path, mode: int) -> tuple[int, Path]:
    """A new file beside ``path`` for writing, created with ``mode`` less the umask.

    Not ``tempfile.mkstemp``, which always creates 0600: a new report would then need the
    umask to set its mode, and reading the umask means setting it, for every thread of
    the process, for a moment.
    """
    _remove_orphans(path)
    for _ in range(100):
        tmp = path.parent / f".{_temporary_stem(path)}.{os.getpid()}-{secrets.token_hex(6)}.tmp"
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
            return os.open(tmp, flags, mode), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temporary name", str(path.parent))


#: The longest file name most file systems take, in bytes (ext4, XFS, APFS, NTFS).
_NAME_MAX = 255
#: What a temporary name adds to its stem: "." before it, ".PID-" and 12 hex digits and
#: ".tmp" after it (a PID of up to 10 digits).
_TEMPORARY_EXTRA = 1 + 1 + 10 + 1 + 12 + 4


def _temporary_stem(path: Path) -> str:
    """The part of ``path``'s name its temporary files begin with: the whole name, or as
    much of it as leaves room for what they add, so that any name the file system takes
    for the file itself has a temporary beside it."""
    try:
        longest = os.pathconf(path.parent, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):  # not told (Windows), or no such directory
        longest = _NAME_MAX
    if longest <= 0:  # no limit
        return path.name
    room = max(longest - _TEMPORARY_EXTRA, 1)
    stem = path.name[:room]  # cut between characters, never inside one's bytes
    while len(os.fsencode(stem)) > room:
        stem = stem[:-1]
    return stem


def _remove_orphans(path: Path) -> None:
    """Delete the temporary files of writes to ``path`` whose process died before the
    rename (killed): nothing else would, and a snapshot's holds the whole memory."""
    # A name cut short began them only since; one whole began a killed write's before
    # (a name a little shorter than the cut, with a short PID, had room then).
    for stem in {_temporary_stem(path), path.name}:
        for tmp in path.parent.glob(f".{glob.escape(stem)}.*-*.tmp"):
            pid = tmp.name[len(stem) + 2:].split("-", 1)[0]
            if pid.isdigit() and not process_alive(int(pid)):
                with contextlib.suppress(OSError):
                    tmp.unlink()


def fsync_path(path: Path) -> None:
    """Sync a file, or a directory (so that a rename in it survives a power loss)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def output_path(value: str | None) -> Path | None:
    """The file a ``--json PATH`` or ``--out PATH`` option names, checked before any work
    starts; None for no file (no option, or ``-``: standard output)."""
    if value is None or value == "-":
        return None
    path = expanded(value)
    check_writable(path)
    return path


def emit_json(data: Any, path: Path | None, private: bool = False) -> None:
    """``data`` as indented JSON, to ``path`` (whole or not at all, ``private`` as for
    ``write_atomic``) or to standard output."""
    text = json.dumps(data, indent=2, default=str) + "\n"
    if path is None:
        sys.stdout.write(text)
    else:
        write_atomic(path, text, private)

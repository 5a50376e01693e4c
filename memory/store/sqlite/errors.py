"""What a caller sees when SQLite fails: a tiermem error that says what to do next.

A full disk, a damaged database file and a failing disk surface from SQLite as
``sqlite3`` exceptions, at open, at any query, or at COMMIT. The store turns
them into ``StoreFullError``, ``StoreCorruptError`` or ``StoreError`` at every
transaction and statement, and memory.store.guard does the same for a public
method whose reads step through a cursor after the statement returned.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shlex
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tiermem.memory.errors import (
    ReadOnlyError,
    StoreBusyError,
    StoreCorruptError,
    StoreError,
    StoreFullError,
)


class _Interrupts:
    """Whether Ctrl-C arrived inside a Python function SQLite was calling (``interruptible``).

    SQLite reports any exception of such a function as ``OperationalError: user-defined
    function raised exception``, so the interrupt would reach the caller as a failed
    statement (a benchmark check failing, exit 1) instead of ending the program (130).
    Signals reach the main thread only, so one flag serves every connection. The flag
    alone is not enough: Python runs the signal handler at the first instruction of the
    function SQLite calls, which may come before the ``try`` that would set it. So the
    function never lets another exception out (``interruptible``), and SQLite's report of
    one is read as Ctrl-C whether or not the flag was set. What is kept is the exception
    itself: a ``SystemExit`` a SIGTERM handler raised there (agent/interrupts.py) must
    end the program as it would have anywhere else, not as Ctrl-C.
    """

    pending: BaseException | None = None


#: What SQLite says of any exception a Python function it called raised.
_FUNCTION_RAISED = "user-defined function raised exception"
_log = logging.getLogger("tiermem")


def interruptible(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` of one text, remembering a KeyboardInterrupt (or a signal's SystemExit)
    raised inside it for ``translate``. Any other failure is logged and the text indexed
    as given: only Ctrl-C (or such a signal) may fail the statement."""
    def call(text: Any) -> Any:
        try:
            return function(text)
        except (KeyboardInterrupt, SystemExit) as exc:
            _Interrupts.pending = exc
            raise
        except Exception as exc:
            _log.warning("tiermem: a text was indexed without its symbols' words (%s: %s)",
                         type(exc).__name__, exc)
            return text
    return call


class UnwritableMemoryError(ReadOnlyError):
    """SQLite refused a write to the memory in ``where`` (``reason``: what it said): it was
    opened read-only, or this user may not write its files or their file system, or, when
    ``not_files`` names them, something not a file lies where its -wal or -shm goes."""

    def __init__(self, where: str, reason: str, not_files: tuple[str, ...] = ()) -> None:
        self.where, self.reason, self.not_files = where, reason, not_files
        #: What failed, without the advice (the command line gives its own).
        self.situation = f"the memory in {where} cannot be changed ({reason})"
        if not_files:  # SQLite takes it for a place it may only read; permissions are not it
            super().__init__(f"{self.situation}; nothing was changed. Once it is moved, "
                             f"try again")
            return
        # SQLite says the same whether the memory was opened read-only or its files cannot
        # be written (their permissions, a read-only file system): name both.
        super().__init__(
            f"{self.situation}: it is open read-only, or its database file or the file "
            f"system holding it is read-only for this user; nothing was changed. Open it "
            f"without read_only=True (once no other session holds it), or make {where} "
            f"writable, to write")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.where, self.reason, self.not_files))


def translate(exc: BaseException, database: Path | None) -> StoreError | None:
    """The tiermem error for an SQLite failure a user can act on; None for any other.

    ``database`` is the database file (None for an in-memory store). A statement that
    failed because Ctrl-C arrived inside one of our SQL functions raises
    KeyboardInterrupt again here.
    """
    if not isinstance(exc, sqlite3.Error):
        return None
    if isinstance(exc, sqlite3.OperationalError) and (
            _Interrupts.pending is not None or str(exc) == _FUNCTION_RAISED):
        pending, _Interrupts.pending = _Interrupts.pending, None
        raise (pending if pending is not None else KeyboardInterrupt()) from exc
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    where = str(database.parent) if database is not None else "memory"
    if code == sqlite3.SQLITE_FULL:
        return StoreFullError(
            f"the disk holding {where} is full ({exc}); nothing from this write was "
            f"saved and memory is as it was before it. Free some space and try again")
    if code in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        return StoreCorruptError(corrupt_message(database, str(exc)))
    if code == sqlite3.SQLITE_READONLY:
        said, not_files = _unwritable_files(database)
        return UnwritableMemoryError(where, str(exc) + said, not_files)
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        # The writer lock keeps other tiermem processes out; this is a program that opened
        # the file itself (the sqlite3 shell in a transaction, a backup tool).
        return StoreBusyError(
            f"the memory database in {where} is busy ({exc}): another process holds a lock "
            f"on it (a program that opened the file itself, such as the sqlite3 shell in a "
            f"transaction); what this call was doing was not saved and the database is not "
            f"damaged. End that program's transaction (or the program), then try again")
    if code == sqlite3.SQLITE_IOERR:
        return StoreError(
            f"cannot read or write the memory database in {where} ({exc}); nothing from "
            f"this call was saved. Check the disk and that no other program moved or "
            f"deleted the files in the agent home, then open it again")
    return None


def _unwritable_files(database: Path | None) -> tuple[str, tuple[str, ...]]:
    """Which of the database's files this user may not write, as an addition to SQLite's
    reason: a -wal or -shm file left read-only beside a writable database is otherwise
    not told from the database itself; nor is a directory where SQLite's -shm file goes,
    which SQLite takes for a file system it may only read. Also the files that are no
    files, when each of the others may be written: then they alone are the cause."""
    if database is None:
        return "", ()
    closed, odd = [], []
    for suffix in ("", "-wal", "-shm"):
        path = database.with_name(database.name + suffix)
        # A file this user may not even look at is left unnamed: the error being
        # explained must not give way to a PermissionError of looking.
        with contextlib.suppress(OSError):
            if path.exists() and not path.is_file():
                odd.append(path.name)
            elif path.exists() and not os.access(path, os.W_OK):
                closed.append(path.name)
    said = ((f"; this user may not write {', '.join(closed)}" if closed else "")
            + (f"; {', '.join(odd)} is not a file: move it out of the agent home" if odd
               else ""))
    return said, () if closed else tuple(odd)


@contextlib.contextmanager
def read_errors(database: Path | None, what: str) -> Iterator[None]:
    """An SQLite failure while ``what`` of ``database`` is read, as a tiermem error: the one
    ``translate`` gives, else a StoreError saying the memory could not be read (a schema
    another program changed, no room for SQLite's temporary files, no memory left)."""
    try:
        yield
    except sqlite3.Error as exc:
        known = translate(exc, database)
        if known is not None:
            raise known from exc
        where = str(database.parent) if database is not None else "memory"
        raise StoreError(
            f"cannot read {what} of the memory database in {where} ({exc}); nothing was "
            f"changed. Check that no other program changed the agent home's files and that "
            f"the disk (and the temporary directory) has room, then try again; if it fails "
            f"again, restore the latest snapshot into a new agent home (`tiermem restore "
            f"FILE --agent NEW`)") from exc


def opening_error(exc: sqlite3.Error, database: Path | None) -> StoreError:
    """What opening the memory says of an SQLite failure while it sets up the connection,
    migrates or marks the database open: damage only when SQLite says the file is damaged
    or not a database. Ctrl-C inside one of our SQL functions (a migration indexing rows
    again) raises KeyboardInterrupt, as ``translate`` does."""
    known = translate(exc, database)
    if known is not None:
        return known
    if type(exc) is sqlite3.DatabaseError:  # SQLite named no error code: not its data
        return StoreCorruptError(corrupt_message(database, str(exc)))
    closed = _closed_to_this_user(database) if database is not None else None
    if closed is not None:
        which = "it" if closed == database else f"{closed.name} beside it"
        return StoreError(
            f"cannot open the memory database {database}: this user may not read {which} "
            f"(permission denied); nothing was changed. Give it read and write access to "
            f"the agent home's files (chmod, or chown to this user), then try again")
    if database is not None and _code(exc) == sqlite3.SQLITE_CANTOPEN:
        return StoreError(f"cannot open the memory database {database} ({exc}): "
                          f"{_why_unopenable(database)}, then try again")
    where = str(database) if database is not None else "the in-memory database"
    return StoreError(
        f"cannot open the memory database {where} ({exc}); an upgrade of its schema stops "
        f"at the last step that completed, and opening it again continues from there")


def _code(exc: sqlite3.Error) -> int:
    return (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF


def _why_unopenable(database: Path) -> str:
    """Why SQLite, which says only "unable to open database file", could not open
    ``database`` or the -wal or -shm file beside it, and what to do; nothing was changed."""
    real = Path(os.path.realpath(database))  # SQLite puts them beside the file a link leads to
    for path in (database, *(real.with_name(real.name + end) for end in ("-wal", "-shm"))):
        with contextlib.suppress(OSError):
            found = _unopenable(path, shlex.quote(str(path))) if os.path.lexists(path) else None
            if found is not None:
                return f"{found[0]}; nothing was changed. {found[1]}"
    return ("SQLite could not open it or its -wal or -shm file beside it; nothing was "
            "changed. Check that the agent home and its files are this user's, readable and "
            "writable, and that this process may open more files (`ulimit -n`)")


def _unopenable(path: Path, quoted: str) -> tuple[str, str] | None:
    """What keeps SQLite from opening ``path`` (which exists, or is a link), if anything,
    and what to do about it."""
    shown = f"{path} (a link to {os.readlink(path)})" if path.is_symlink() else str(path)
    if not path.exists():
        return (f"{shown} leads to no file (on a disk not mounted?)",
                f"Make the file it leads to reachable, or, if nothing there is to be kept, "
                f"remove the link (`rm {quoted}`)")
    if not path.is_file():
        return f"{shown} is not a file", f"Move it out of the way (`mv {quoted} {quoted}.moved`)"
    if path.is_symlink() and path.name.endswith(("-wal", "-shm")):
        # SQLite opens its database through a link, never the files beside it.
        if path.stat().st_size == 0:
            return (f"{shown}: SQLite opens no -wal or -shm file through a link, and the file "
                    f"it leads to is empty", f"It holds nothing: remove the link (`rm {quoted}`)")
        return (f"{shown}: SQLite opens no -wal or -shm file through a link",
                f"If the file it leads to is this memory's, move it here in the link's place "
                f"(`mv {shlex.quote(os.path.realpath(path))} {quoted}`); if not, remove the "
                f"link (`rm {quoted}`)")
    if os.access(path, os.R_OK | os.W_OK):
        return None
    if path.stat().st_size == 0:
        return (f"this user may not write {shown}, which is empty",
                f"It holds nothing: remove it (`rm {quoted}`)")
    return f"this user may not write {shown}", f"Make it writable (`chmod u+w {quoted}`)"


def _closed_to_this_user(database: Path) -> Path | None:
    """The file of ``database`` (itself, its -wal or -shm) this user may not read, if any:
    SQLite reports it only as "unable to open database file"."""
    for path in (database, database.with_name(database.name + "-wal"),
                 database.with_name(database.name + "-shm")):
        with contextlib.suppress(OSError):
            if path.exists() and not os.access(path, os.R_OK):
                return path
    return None


def corrupt_message(database: Path | None, problem: str) -> str:
    """Why the database cannot be used, and the two ways out."""
    if database is None:
        return f"the in-memory database is damaged ({problem}); create a new memory"
    return (
        f"the memory database {database} is damaged ({problem}); nothing was changed by "
        f"this call. Stop using this agent home and copy it aside, then either restore "
        f"the latest snapshot into a new home (`tiermem restore FILE --agent NEW`, or "
        f"HierarchicalMemory.restore), or salvage what is readable into a new agent home "
        f"NEW with `{salvage_command(database)}`"
    )


def salvage_command(database: Path) -> str:
    """A shell command that copies what is readable of ``database`` into ``NEW/`` as a
    memory tiermem opens: the rows as SQL (``.dump`` writes what it can read past damage;
    ``.recover`` fails on full-text tables in sqlite3 3.40), then the schema version, which
    a dump leaves out and without which the copy is no memory."""
    quoted = shlex.quote(str(database))
    return (f"mkdir NEW && (sqlite3 {quoted} .dump; echo \"PRAGMA user_version=$(sqlite3 "
            f"{quoted} 'PRAGMA user_version');\") | sqlite3 NEW/memory.sqlite3")

"""Restoring into an agent home so that it holds the old memory or the new one, never a mix.

A restore builds the new database in a file of its own in the home,
``memory.sqlite3.restore-<pid>-<random>``, under the home's writer lock, so
no other writer can open the home meanwhile. Only when every row is in and
committed does the new file replace ``memory.sqlite3``, by one rename:

1. the new file is switched to a rollback journal, so everything it holds is
   in the one file, and synced to disk;
2. an old database (``replace=True``) is checkpointed the same way, so its
   ``-wal`` holds nothing that the new file could be mistaken for;
3. the FAISS files are deleted (they are derived, and rebuilt from the
   database on the next open);
4. the new file is renamed over ``memory.sqlite3`` and the directory synced.

A failure or a kill before step 4 leaves the old database as it was (steps
2 and 3 change how it is stored, not what it holds); after step 4 the home
holds the new one. The temporary files a killed restore leaves are removed by
the next restore (before it creates its own) or open of the home, which hold the
writer lock. A restore that failed into a home it created removes the home again.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shlex
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

from tiermem.memory.errors import StoreCorruptError, StoreError
from tiermem.memory.output_file import fsync_path
from tiermem.memory.restore_errors import RestoreTargetHoldsMemoryError
from tiermem.memory.store.sqlite.connection import (
    connect_read_only,
    holds_no_memory_yet,
    refuse_linked_sidecars,
    refuse_newer_schema,
)
from tiermem.memory.store.sqlite.files import (
    ARCHIVAL_INDEX_FILE,
    DB_FILE,
    RECALL_INDEX_FILE,
    RESTORE_PREFIX,
    discard_restore_leftovers,
)
from tiermem.memory.store.sqlite.store import SQLiteStore
from tiermem.memory.store.sqlite.vector_files import remove_index_files
from tiermem.memory.store.sqlite.writer_lock import LOCK_FILE, WriterLock

INDEX_FILES = (ARCHIVAL_INDEX_FILE, RECALL_INDEX_FILE)


@contextlib.contextmanager
def database_aside(home: Path, replace: bool, *,
                   refusal: Callable[[Path], Exception | None] | None = None,
                   ) -> Iterator[SQLiteStore]:
    """A new, empty store in ``home`` that becomes its database if the block succeeds.

    The home's writer lock is held throughout. Without ``replace`` a home that
    already holds a memory is refused before anything is written, with what
    ``refusal(home)`` gives (by default a restore's ``home_refusal``).
    """
    name = f"{RESTORE_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
    created = not home.exists()
    try:
        store = SQLiteStore(home, db_file=name)  # what killed restores left is swept first
    except BaseException:
        # Created and set up in the home before it failed (a full disk, Ctrl-C): its files
        # are this restore's alone (the name is), so they go without the lock it released.
        for leftover in home.glob(f"{name}*"):
            leftover.unlink(missing_ok=True)
        if created:
            remove_made_home(home)
        raise
    try:
        refused = (refusal or home_refusal)(home)
        if refused is not None:
            if not replace:
                raise refused
            _refuse_newer(home / DB_FILE)
        yield store
        _move_into_place(store, home / name, home / DB_FILE)
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            store.conn.close()
        discard_restore_leftovers(home)  # still under the lock: only ours can be there
        store.close()
        if created:
            remove_made_home(home)
        raise
    store.close()


def remove_made_home(home: Path) -> None:
    """Remove ``home``, made by a restore that failed, if nothing but its writer lock is
    there: else a directory holding no memory passes for an agent. The lock file goes while
    it is held, so a process that opened the home meanwhile keeps it (its lock file and
    what it wrote make the directory not empty)."""
    lock = WriterLock(home)
    try:
        lock.acquire()
    except StoreError:
        return  # another process has the home now
    try:
        if {p.name for p in home.iterdir()} == {LOCK_FILE}:
            lock.path.unlink(missing_ok=True)
    finally:
        lock.release()
    with contextlib.suppress(OSError):
        home.rmdir()  # only when empty


def home_refusal(home: Path) -> RestoreTargetHoldsMemoryError | None:
    """What a restore into ``home`` without ``replace`` raises: a memory is there. A
    database whose creation never finished (0 bytes, or cut short before it stored
    anything) is none, nor is one that holds nothing a restore would lose (``held_by``,
    as on PostgreSQL and for a migrate): the restored one is renamed over it. One that
    cannot be read to tell (older, newer, damaged, another program's) is taken for one."""
    if not (home / DB_FILE).exists() or holds_no_memory_yet(home / DB_FILE):
        return None
    held = _held_in(home)
    if held == ():
        return None
    return RestoreTargetHoldsMemoryError(str(home), held or (), "an empty directory")


def _held_in(home: Path) -> tuple[str, ...] | None:
    """``held_by`` of the home's database, read-only; None when it cannot be read as this
    version's memory."""
    from tiermem.memory.store.transfer import held_by

    try:
        store = SQLiteStore(home, read_only=True)
    except (StoreError, sqlite3.DatabaseError):
        return None
    try:
        return held_by(store)
    except (StoreError, sqlite3.DatabaseError):
        return None
    finally:
        store.close()


def _refuse_newer(database: Path) -> None:
    """Raise NewerSchemaError if a newer version of tiermem wrote ``database``: replacing
    it would lose what that version stored, as surely as writing to it. A database too
    damaged to tell is replaced: a restore is the way back from one."""
    try:
        conn = connect_read_only(database)
    except sqlite3.DatabaseError:
        return
    try:
        refuse_newer_schema(conn, database)
    except sqlite3.DatabaseError:
        return
    finally:
        conn.close()


def _move_into_place(store: SQLiteStore, built: Path, target: Path) -> None:
    # Closed cleanly here, so the first open of the restored memory is not taken for a
    # recovery after a crash (which would run quick_check on a file just built).
    with store.transaction():
        store.settings.set("writer_state", "closed")
    store.execute("PRAGMA journal_mode = DELETE")  # its WAL, folded into the file
    store.conn.close()
    fsync_path(built)
    if target.exists():
        refuse_linked_sidecars(target)  # _settle would write through them
        _own_file(target)
        _settle(target)
    else:
        # A -wal without its database belongs to nothing; SQLite would replay it
        # into the new file.
        for suffix in ("-wal", "-shm"):
            Path(f"{target}{suffix}").unlink(missing_ok=True)
    for name in INDEX_FILES:
        remove_index_files(target.parent / name)
    place(built, target)


def _own_file(database: Path) -> None:
    """Give ``database`` a file of its own if it is a hard link (``ln`` taken for a backup,
    a home copied with ``cp -al``), so settling it writes nothing under its other names:
    they keep the old memory as it was. Done under the writer lock; a copy a kill leaves
    is swept as a restore's leftover."""
    if database.stat().st_nlink < 2:
        return
    held = _held_or_logged(database)
    if held:
        quoted = shlex.quote(str(database))
        raise StoreError(
            f"{held}, and {database.name} is a hard link; close every session reading it, "
            f"and if none is open, give it a file of its own (`cp -p {quoted} {quoted}.own "
            f"&& mv {quoted}.own {quoted}`: the -wal's commits then go into that file alone), "
            f"then restore again")
    own = database.with_name(f"{RESTORE_PREFIX}{os.getpid()}-own")
    shutil.copy2(database, own)
    os.replace(own, database)


def _held_or_logged(database: Path) -> str | None:
    """Which holds ``database``, if any: a session reading it (its lock is on this file,
    which a copy would not share, so settling the copy could not see it), or frames in its
    -wal, which looking would fold in through the link, so whether a session has it open
    cannot be told. Looking at an empty -wal writes nothing."""
    wal = database.with_name(f"{database.name}-wal")
    if wal.exists() and wal.stat().st_size > 0:
        return (f"the memory at {database.parent} has commits in {wal.name} not yet in "
                f"{database.name} (a session has it open, or one that stopped left them)")
    conn = sqlite3.connect(database, timeout=0, isolation_level=None)
    try:
        conn.execute("PRAGMA locking_mode = EXCLUSIVE")
        conn.execute("BEGIN EXCLUSIVE")  # refused while any other connection reads it
        conn.execute("ROLLBACK")
    except sqlite3.OperationalError:
        return f"the memory at {database.parent} is open in another process"
    finally:
        conn.close()
    return None


def _settle(database: Path) -> None:
    """Fold the old database's WAL into its file, so that file alone holds its state."""
    try:
        conn = sqlite3.connect(database, timeout=0, isolation_level=None)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            mode = conn.execute("PRAGMA journal_mode = DELETE").fetchone()[0]
        finally:
            conn.close()
    # Not SnapshotError: the snapshot is fine, the memory it would replace is in the way.
    except sqlite3.OperationalError as exc:
        raise StoreError(
            f"the memory at {database.parent} is open in another process ({exc}); close every "
            f"session reading it, then restore again") from None
    except sqlite3.DatabaseError as exc:
        raise StoreCorruptError(
            f"the memory at {database.parent} cannot be read ({exc}); move {database.name} "
            f"and its -wal and -shm files out of the way, then restore again") from None
    if str(mode).lower() != "delete":
        raise StoreError(
            f"the memory at {database.parent} is open in another process; close every "
            f"session reading it, then restore again")


def place(built: Path, target: Path) -> None:
    """The one step that switches the home from the old memory to the new."""
    os.replace(built, target)
    fsync_path(target.parent)


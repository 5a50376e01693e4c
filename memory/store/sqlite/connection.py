"""Opening a SQLite database for ``SQLiteStore`` (memory/store/sqlite/store.py): the agent
home and the database file, private to this user; the connection, for writing (with the
settings every writer runs under) or read-only; and the checks that refuse a database this
version cannot use, before anything is written to it.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import sqlite3
import stat
from pathlib import Path

from tiermem.memory.errors import (
    EmptyStoreFileError,
    NewerSchemaError,
    OlderSchemaError,
    StoreError,
    UnfinishedStoreError,
)
from tiermem.memory.store.records import DUMP_TABLES
from tiermem.memory.store.sqlite.errors import opening_error
from tiermem.memory.store.sqlite.schema import SCHEMA_VERSION, register_functions

DURABILITY = {"normal": "NORMAL", "full": "FULL"}
#: How long a statement waits for a lock another program holds on the database file
#: before it fails (memory.errors.StoreBusyError).
BUSY_SECONDS = 5.0


def make_home(home: Path) -> None:
    """Create ``home`` readable by this user only, whatever the umask: a memory holds what
    its users said. A directory that exists is left as it is (the command line tightens
    its agents' homes, agent/home.py)."""
    try:
        home.mkdir(parents=True)
    except FileExistsError:
        if home.is_dir():
            return
        raise
    home.chmod(0o700)


def create_private(database: Path) -> None:
    """Create ``database`` empty and 0600 if it does not exist; SQLite gives its ``-wal``
    and ``-shm`` files the same mode."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(database, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


def open_empty_wal(database: Path) -> None:
    """Give an empty ``-wal`` file this user owns but may not write the database's mode.

    SQLite opens such a file read-only, so the first write fails, and then gives the empty
    file the database's mode itself, as it does to any empty file it opens: the next open
    would succeed. Done before it opens, the write succeeds now. A -wal holding changes is
    left as it is: a write then fails naming it (memory/store/sqlite/errors.py), and so is
    anything but a file (a link's target may lie outside the home, and be someone's choice).
    """
    wal = database.with_name(database.name + "-wal")
    with contextlib.suppress(OSError):
        info = wal.lstat()
        if stat.S_ISREG(info.st_mode) and info.st_size == 0 and not os.access(wal, os.W_OK):
            wal.chmod(stat.S_IMODE(database.stat().st_mode))


def refuse_linked_sidecars(database: Path) -> None:
    """Refuse a -wal or -shm beside ``database`` that is a hard link (a file with more
    than one name, as a home copied with ``cp -al`` leaves them): SQLite would write
    through it, changing the file behind the other names, whatever it holds; it writes the
    -shm even to read. One in a home this user cannot change (a read-only file system) is
    left: it cannot be written through, nor given a file of its own. In a home this user
    can change, one this user may not write is refused too: ``open_empty_wal`` would give
    it the database's mode, and SQLite would write through it. Checked before SQLite opens
    anything."""
    real = Path(os.path.realpath(database))  # SQLite puts them beside the file a link leads to
    for path in (real.with_name(real.name + end) for end in ("-wal", "-shm")):
        _refuse_hard_link(path, "SQLite would write through it, changing the file wherever "
                                "else it is named")


def refuse_linked_database(database: Path) -> None:
    """Refuse ``database`` for writing when it is a hard link (``ln`` taken for a backup, a
    home copied with ``cp -al``): every write would change the file under its other names
    too, and SQLite keeps a -wal per name, so a write through one name is lost to, or
    damages, the file read through another (SQLite's "How To Corrupt An SQLite Database
    File" names multiple links). Reading writes nothing to it."""
    _refuse_hard_link(Path(os.path.realpath(database)),
                      "every write would change it under the other names too, and SQLite "
                      "keeps a -wal per name, so opened by another it can be damaged "
                      "(SQLite names multiple links to a database as a way to corrupt it)")


def _refuse_hard_link(path: Path, why: str) -> None:
    try:
        info = path.lstat()
    except OSError:
        return
    if (stat.S_ISREG(info.st_mode) and info.st_nlink > 1
            and (os.access(path, os.W_OK) or _may_change(path.parent))):
        quoted = shlex.quote(str(path))
        others = "another name" if info.st_nlink == 2 else f"{info.st_nlink - 1} other names"
        raise StoreError(
            f"{path} is a hard link (the file has {others}, as `ln` or `cp -al` leave "
            f"it): {why}; nothing was changed. With no session open, give it a file of "
            f"its own, which leaves the other names the file as it is now (`cp -p {quoted} "
            f"{quoted}.own && mv {quoted}.own {quoted}`), then try again")


def connect(database: Path | None) -> sqlite3.Connection:
    conn = sqlite3.connect(database or ":memory:", timeout=BUSY_SECONDS, isolation_level=None,
                           check_same_thread=False)
    register_functions(conn)
    return conn


def connect_read_only(database: Path) -> sqlite3.Connection:
    if not database.exists():
        raise StoreError(f"no memory at {database.parent}: {database.name} does not exist")
    refuse_linked_sidecars(database)
    conn: sqlite3.Connection | None = None
    database = database.absolute()  # a file URI cannot hold a relative path
    try:
        conn = sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True, isolation_level=None,
                               check_same_thread=False)
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.OperationalError as exc:
        if conn is not None:
            conn.close()
        code = getattr(exc, "sqlite_errorcode", 0) or 0
        if code & 0xFF != sqlite3.SQLITE_CANTOPEN and code != sqlite3.SQLITE_READONLY_DIRECTORY:
            raise
        # A WAL reader needs the -shm file, which SQLite cannot create in a read-only
        # directory (CANTOPEN on a read-only file system, READONLY_DIRECTORY in a directory
        # this user may not write); no writer can be using such a home, so the file alone
        # is the database, unless a -wal file holds commits not yet copied into it (a home
        # copied, or left on a file system remounted read-only, after a crash): read
        # without them, the memory would be an older one, silently.
        if _odd_sidecar(database):
            raise opening_error(exc, database) from None
        wal = database.with_name(database.name + "-wal")
        with contextlib.suppress(OSError):
            if wal.stat().st_size > 0:
                raise StoreError(
                    f"{database.parent} is read-only, and {wal.name} holds changes not yet "
                    f"in {database.name}, which SQLite can only read with a -shm file it "
                    f"cannot create there; copy the agent home to a writable directory and "
                    f"open the copy (opening it once for writing folds them in)") from None
        conn = sqlite3.connect(f"{database.as_uri()}?mode=ro&immutable=1", uri=True,
                               isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA query_only = ON")
    return conn


def _odd_sidecar(database: Path) -> bool:
    """Whether a -wal or -shm beside ``database`` is something SQLite cannot open, not a
    file (a directory, a link leading nowhere), rather than one it may not create. A link
    to a file is one too where it can be moved or removed; in a home this user may not
    change, the database alone is read, as with no -shm, unless the -wal holds changes."""
    real = Path(os.path.realpath(database))
    fixable = _may_change(real.parent)
    for path in (real.with_name(real.name + end) for end in ("-wal", "-shm")):
        if fixable and os.path.islink(path):
            return True
        with contextlib.suppress(OSError):
            if os.path.lexists(path) and not stat.S_ISREG(os.stat(path).st_mode):
                return True
        if os.path.lexists(path) and not os.path.exists(path):
            return True
    return False


def _may_change(directory: Path) -> bool:
    """Whether this user may add and remove files in ``directory`` (not on a read-only
    file system, which ``os.access`` reports too)."""
    return os.access(directory, os.W_OK | os.X_OK)


def configure_writer(conn: sqlite3.Connection, on_disk: bool, durability: str) -> None:
    """The settings of a connection that writes (``on_disk``: to a file, not in memory)."""
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    # Deleted content is overwritten with zeros, not left in free space
    # (memory/store/sqlite/erasure.py).
    conn.execute("PRAGMA secure_delete = ON")
    if on_disk:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute(f"PRAGMA synchronous = {DURABILITY[durability]}")


def is_empty_file(database: Path) -> bool:
    """Whether ``database`` is a file of 0 bytes (a ``touch``, a copy cut short, a
    creation stopped before SQLite wrote its first page)."""
    try:
        return database.stat().st_size == 0
    except OSError:
        return False


# -- schema -----------------------------------------------------------------------------
def check_schema_readable(conn: sqlite3.Connection, database: Path | None) -> None:
    """Refuse a database a read-only open cannot read as it is: older (it would have to
    be migrated, which writes), left unfinished, newer, or not a memory at all."""
    refuse_foreign(conn, database)
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if database is not None and is_empty_file(database):
        raise EmptyStoreFileError(str(database), version)
    if version < SCHEMA_VERSION and _holds_nothing(conn):
        # Every open that creates a memory runs all migrations then stores its
        # settings, and every older tiermem stored settings too: a database without
        # any was left by a process that stopped while creating it.
        raise UnfinishedStoreError(f"the memory database {database}", version)
    if version < SCHEMA_VERSION:
        raise OlderSchemaError(f"the memory database {database}", version, SCHEMA_VERSION)
    refuse_newer_schema(conn, database)


def holds_no_memory_yet(database: Path) -> bool:
    """Whether ``database`` is a memory whose creation never finished: a file of 0 bytes,
    or a tiermem database short of the current schema with nothing stored (what
    ``check_schema_readable`` calls unfinished). Nothing in it can be lost, so a migrate or
    a restore takes it for no memory; anything else there (a memory, another program's
    database, one too damaged to read) is taken for one."""
    if is_empty_file(database):
        return True
    try:
        conn = connect_read_only(database)
    except (sqlite3.DatabaseError, StoreError):
        return False
    try:
        check_schema_readable(conn, database)
    except UnfinishedStoreError:
        return True
    except (StoreError, sqlite3.DatabaseError):
        return False
    finally:
        conn.close()
    return False


#: Tables every tiermem database has held since its first migration.
_OWN_TABLES = frozenset({"meta", "facts", "passages", "messages"})


def refuse_foreign(conn: sqlite3.Connection, database: Path | None) -> None:
    """Refuse a database that is neither a tiermem memory nor one whose creation was cut
    short (no table yet), before anything writes to it: another program's file named like
    ours must never be migrated into one."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    tables = sorted(row[0] for row in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"))
    if (version == 0 and not tables) or (version > 0 and set(tables) >= _OWN_TABLES):
        return
    shown = ", ".join(tables[:4]) + (", ..." if len(tables) > 4 else "") or "none"
    raise StoreError(
        f"{database} is not a tiermem memory (its tables: {shown}); nothing in it was "
        f"changed. Give tiermem a directory of its own for this agent, or move that file "
        f"away")


def refuse_newer_schema(conn: sqlite3.Connection, database: Path | None) -> None:
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise NewerSchemaError(f"the memory database {database}", version, SCHEMA_VERSION)


def _holds_nothing(conn: sqlite3.Connection) -> bool:
    """Whether no table of the database holds a row (or none was created yet)."""
    tables = {row[0] for row in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}
    return not any(conn.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone()
                   for table in ("meta", *DUMP_TABLES) if table in tables)

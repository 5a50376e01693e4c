"""The transactions and statements of ``SQLiteStore`` (memory/store/sqlite/store.py) on
its one connection, and when the full-text indexes take the rows appended.

Transactions nest: the outermost ``transaction()`` is ``BEGIN IMMEDIATE``,
inner ones are savepoints. Components that keep state in memory (the core
heap, the FAISS indexes, counters) register ``on_rollback`` callbacks so a
rolled-back transaction leaves them exactly as the database is.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tiermem.memory.errors import ReadOnlyError, StoreClosedError
from tiermem.memory.store.nesting import NestedTransactions
from tiermem.memory.store.sqlite.connection import refuse_newer_schema
from tiermem.memory.store.sqlite.errors import translate
from tiermem.memory.store.sqlite.schema_search import APPENDED_INTO_INDEX
from tiermem.memory.store.sqlite.writer_lock import WriterLock


class SQLiteTransactions(NestedTransactions):
    """The begin / commit / rollback statements ``NestedTransactions`` runs, the read
    transactions, and every statement's way to the connection, with SQLite's errors
    translated. ``SQLiteStore`` sets the attributes below when it opens."""

    conn: sqlite3.Connection
    lock: threading.RLock
    home: Path | None
    database: Path | None
    durability: str
    read_only: bool
    closed: bool
    #: Whether ``read_snapshot`` holds the read transaction open now.
    reading_snapshot: bool
    _writer: WriterLock | None
    #: What ``PRAGMA data_version`` said when this reader last caught up.
    _data_version: int
    #: The tables with rows appended that their full-text index may not hold yet
    #: (``index_appended``).
    _unindexed: set[str]

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """A transaction, or a savepoint inside the one already open.

        A full disk is reported at COMMIT, when the pages reach the WAL; the
        commit is guarded with the body (memory.store.nesting).

        The calling thread holds ``lock`` until the transaction ends, so another
        thread neither joins it nor sees its uncommitted rows.
        """
        self._check_usable()  # before the lock: a forked child may have copied it held
        with self.lock:
            yield from self._transaction()

    def _transaction(self) -> Iterator[None]:
        self._check_usable()
        if self.read_only:
            raise ReadOnlyError(
                f"this memory ({self.home}) is open read-only, so it cannot be changed; open it "
                f"without read_only=True (once no other session holds it) to write")
        if self._writer is not None and not self._depth:
            self._writer.check_still_held(
                written_meanwhile=lambda: self._read_data_version() != self._data_version)
        yield from self._nested()

    @contextlib.contextmanager
    def read_snapshot(self) -> Iterator[None]:
        """Every read inside sees one state of the database, though another process may
        commit meanwhile (a deferred read transaction; WAL lets writers go on). Inside a
        transaction already open, reads see that one's state and nothing is begun."""
        self._check_usable()
        with self.lock:
            if self.conn.in_transaction:
                yield
                return
            self.execute("BEGIN DEFERRED")
            self.reading_snapshot = True
            try:
                yield
            finally:
                self.reading_snapshot = False
                if self.conn.in_transaction:
                    self.conn.execute("COMMIT")

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """``catch_up`` and the block in one read transaction (the contract's ``reading``).
        Its first read, ``PRAGMA data_version``, fixes the state read: the version it
        checks is that of the rows the catch-up reloads and the block reads."""
        if not self.read_only:
            yield
            return
        with self.read_snapshot():
            self.catch_up()
            yield

    def _begin(self, savepoint: str | None) -> None:
        self.conn.execute("BEGIN IMMEDIATE" if savepoint is None else f"SAVEPOINT {savepoint}")

    def _read_data_version(self) -> int:
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    def _changed_elsewhere(self) -> bool:
        # data_version changes when another connection commits, and costs no disk read.
        if not self.read_only or self.closed:
            return False
        version = self._read_data_version()
        if version == self._data_version:
            return False
        # A newer tiermem may have been what committed: with no writer open it takes the
        # writer lock and upgrades the file under this reader, whose reads of that schema
        # could show what the newer one withholds or fail on a column it changed. Only
        # after a commit, so a read with nothing new costs nothing more; the version is
        # not taken as seen, so each read after the upgrade refuses it again.
        refuse_newer_schema(self.conn, self.database)
        self._data_version = version
        return True

    def _commit(self) -> None:
        self.index_appended()
        self.conn.execute("COMMIT")
        self._unindexed.clear()
        if self.durability == "full" and self.home is not None:
            # Into the database file now, so the commit does not depend on the WAL.
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def _release(self, savepoint: str) -> None:
        self.conn.execute(f"RELEASE {savepoint}")

    def _roll_back(self, savepoint: str | None) -> None:
        if savepoint is not None:
            self.conn.execute(f"ROLLBACK TO {savepoint}")
            self.conn.execute(f"RELEASE {savepoint}")
            return
        self._unindexed.clear()  # the rows appended are gone with the rest
        if self.conn.in_transaction:
            # After some errors (SQLITE_FULL at COMMIT among them) SQLite has
            # already rolled back; otherwise the transaction is still open.
            self.conn.execute("ROLLBACK")

    def execute(self, sql: str, params: Any = ()) -> sqlite3.Cursor:
        return self._translated(self.conn.execute, sql, params)

    def executemany(self, sql: str, rows: Any) -> sqlite3.Cursor:
        return self._translated(self.conn.executemany, sql, rows)

    def _translated(self, call: Callable[[str, Any], sqlite3.Cursor], sql: str,
                    args: Any) -> sqlite3.Cursor:
        self._check_usable()
        try:
            return call(sql, args)
        except sqlite3.Error as exc:
            mapped = translate(exc, self.database)
            if mapped is None:
                raise
            raise mapped from exc

    def _check_usable(self) -> None:
        if self.closed:
            raise StoreClosedError("this memory is closed; open it again to use it")
        if self._writer is not None and self._writer.forked:
            raise self._writer.forked_error()

    # -- the full-text indexes ----------------------------------------------------------
    def rows_appended(self, table: str) -> None:
        """Rows went into ``table`` (messages, facts or passages): its full-text index takes
        them before the transaction commits or the index is searched (``index_appended``)."""
        self._unindexed.add(table)
        if not self.conn.in_transaction:  # appended outside a transaction: committed now
            self.index_appended()
            self._unindexed.clear()

    def index_appended(self) -> None:
        """Write the rows appended since each full-text index was last written into it, in
        one statement a table, so FTS5 makes one segment of them where a statement per row
        made one each (memory/store/sqlite/schema_search.py, ``APPENDED_INTO_INDEX``). Once
        rows are appended it runs at every search and at the commit, not only the first
        time: a rollback to a savepoint may undo what it wrote and keep the rows."""
        for table in sorted(self._unindexed):
            self.execute(APPENDED_INTO_INDEX[table])

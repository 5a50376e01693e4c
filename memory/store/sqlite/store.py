"""The SQLite backend of the storage contract: opening (for writing, or read-only; the
connection and its checks are in memory/store/sqlite/connection.py), the single writer,
and the tables behind the contract's Protocols. Its transactions and statements are in
memory/store/sqlite/transactions.py.

SQLite is the single source of truth for every tier (its schema is in
memory/store/sqlite/schema.py). The FAISS indexes are derived from it
(memory/store/sqlite/vectors.py) and are rebuilt whenever they disagree.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from tiermem.memory.errors import (
    EMPTY_FILE_CAUSES,
    InvalidInputError,
    ReadOnlyError,
    StoreCorruptError,
    StoreError,
)
from tiermem.memory.store.records import DumpRow, DumpTable, TextTable, VectorTable
from tiermem.memory.store.sqlite.connection import (
    DURABILITY,
    check_schema_readable,
    configure_writer,
    connect,
    connect_read_only,
    create_private,
    is_empty_file,
    make_home,
    open_empty_wal,
    refuse_foreign,
    refuse_linked_database,
    refuse_linked_sidecars,
    refuse_newer_schema,
)
from tiermem.memory.store.sqlite.dump import (
    clear_tables,
    clear_undone_evictions,
    count_rows,
    export_rows,
    import_rows,
    mark_erased_ids,
)
from tiermem.memory.store.sqlite.erasure import purge
from tiermem.memory.store.sqlite.errors import corrupt_message, opening_error, translate
from tiermem.memory.store.sqlite.facts import SQLiteFacts
from tiermem.memory.store.sqlite.files import (
    ARCHIVAL_INDEX_FILE,
    DB_FILE,
    RECALL_INDEX_FILE,
    discard_restore_leftovers,
)
from tiermem.memory.store.sqlite.forgetting import SQLiteForgetting
from tiermem.memory.store.sqlite.history import SQLiteHistory, SQLiteSettings
from tiermem.memory.store.sqlite.lexical import SQLiteLexical
from tiermem.memory.store.sqlite.lexical_cache import TermCache
from tiermem.memory.store.sqlite.messages import MESSAGE_APPENDS, SQLiteMessages
from tiermem.memory.store.sqlite.passages import PASSAGE_APPENDS, SQLitePassages
from tiermem.memory.store.sqlite.schema import STORE_INDEXES, migrate
from tiermem.memory.store.sqlite.schema_search import UNINDEXED_ROW
from tiermem.memory.store.sqlite.transactions import SQLiteTransactions
from tiermem.memory.store.sqlite.vectors import FaissIndex
from tiermem.memory.store.sqlite.writer_lock import WriterLock, writer_lock_held
from tiermem.memory.store.vector_choice import (
    checked_ef_search,
    checked_vector_index,
    refuse_unused_ef_search,
)
from tiermem.memory.validation import check_flag

_log = logging.getLogger(__name__)


class SQLiteStore(SQLiteTransactions):
    """One SQLite database plus the lock that makes its writer unique
    (memory.store.contract.StorageBackend).

    ``read_only=True`` opens an existing database for reading only, without the
    writer lock, so it can be inspected while a writer has it open; nothing is
    written, not even the marker of an open session, and ``transaction`` raises
    ReadOnlyError.

    ``durability="normal"`` (synchronous=NORMAL in WAL mode) keeps every commit
    through a crash of the process; a power loss can undo the last ones. With
    ``"full"`` every commit is synced to disk and copied into the database file
    at once (a WAL checkpoint), so losing the ``-wal`` file loses no commit either.

    ``db_file`` other than the default names a database built aside under the
    home's writer lock (a snapshot restore), then moved into place.

    ``writer_lock``, the home's writer lock already taken by the caller, is handed over:
    the store holds it from then on and releases it on close (or on a failed open), so a
    caller that prepares the home under the lock leaves no moment for another writer.
    """

    def __init__(self, home: Path | str | None, *, durability: str = "normal",
                 read_only: bool = False, db_file: str = DB_FILE,
                 vector_index: str = "auto", ef_search: int | None = None,
                 writer_lock: WriterLock | None = None) -> None:
        if durability not in DURABILITY:
            raise InvalidInputError(
                f"durability must be 'normal' or 'full', got {durability!r}")
        read_only = check_flag(read_only, "read_only")  # the string "false" would read as yes
        if read_only and home is None:
            raise InvalidInputError("read_only needs the path of an existing agent home")
        #: How vectors are searched (memory.store.vector_choice).
        self.vector_index = checked_vector_index(vector_index)
        self.ef_search = checked_ef_search(ef_search)
        refuse_unused_ef_search(self.vector_index, self.ef_search)
        # Refused arguments leave a handed lock with the caller; from here it is the store's.
        if writer_lock is not None and (read_only or home is None
                                        or not writer_lock.locks(Path(home))):
            raise InvalidInputError("writer_lock is the lock of an agent home to write: give "
                                    "it with that home's path and read_only=False")
        if writer_lock is not None and not writer_lock.held:
            # Taken over unheld, it would let a second writer open the home beside this one.
            raise InvalidInputError("writer_lock is not held: acquire() it first, or leave "
                                    "writer_lock out and the store takes the lock itself")
        home = Path(home) if home is not None else None  # a str is a path too
        self.home = home
        self.database = home / db_file if home is not None else None
        self.durability = durability
        self.read_only = read_only
        self.closed = False
        self.facts = SQLiteFacts(self)
        self.passages = SQLitePassages(self)
        self.messages = SQLiteMessages(self)
        self.history = SQLiteHistory(self)
        self.settings = SQLiteSettings(self)
        self._term_caches: dict[str, TermCache] = {}
        self._unindexed = set()
        self.reading_snapshot = False
        self._close_hooks: list[Callable[[], None]] = []
        self.forgetting = SQLiteForgetting(self)
        # Threads share this memory by taking turns: every transaction, and every public
        # method of HierarchicalMemory (memory.store.sqlite.errors.guarded), holds this lock.
        # Serialising rather than refusing a second thread: a process can open a home
        # only once (the writer lock), so code that hands the memory to worker threads
        # has no other way to use it, and SQLite's one connection, FAISS and the
        # in-memory state must change together, which concurrent calls would break.
        self.lock = threading.RLock()
        #: Whether opening ran SQLite's quick_check (it does after an unclean close).
        self.quick_checked = False
        self._writer = writer_lock
        self._data_version = 0
        #: The database was an empty file (0 bytes) before this open made a memory of it.
        self.was_empty_file = False
        # A failure or a Ctrl-C once the lock is taken lets it go at once: a caller that goes
        # on must not find the home locked by its own process until the store is collected.
        try:
            self._init_transactions()
            if home is not None and not read_only:
                try:
                    make_home(home)
                except OSError as exc:
                    raise StoreError(f"cannot create the agent home {home}: {exc.strerror}; "
                                     f"choose a directory this user can write") from None
                if writer_lock is None:
                    self._writer = WriterLock(home)
                    self._writer.acquire()
                if db_file != DB_FILE:
                    # Before this one is created: on a nearly full disk, what a killed
                    # restore left is the space the new database needs.
                    discard_restore_leftovers(home)
                self.was_empty_file = is_empty_file(home / db_file)
                create_private(home / db_file)
                refuse_linked_database(home / db_file)
                refuse_linked_sidecars(home / db_file)  # before its mode is changed
                open_empty_wal(home / db_file)
            if self.database is not None and read_only:
                self.conn = connect_read_only(self.database)
                check_schema_readable(self.conn, self.database)
                self._data_version = self._read_data_version()
            else:
                self.conn = connect(self.database)
                # Before anything is written, even the journal mode: what a newer version
                # stored may rest on columns and invariants this one would break.
                refuse_newer_schema(self.conn, self.database)
                refuse_foreign(self.conn, self.database)
                if home is not None and db_file == DB_FILE:
                    discard_restore_leftovers(home)  # from a killed restore; we hold the lock
                configure_writer(self.conn, home is not None, durability)
                migrate(self.conn)
                self._mark_open()
                if self.was_empty_file:
                    _log.warning(
                        "%s was an empty file (0 bytes): %s. A new, empty memory was created "
                        "in it; if it should have held one, that memory is where it was "
                        "copied from: copy it again (with no session open) before this one "
                        "holds anything to keep", self.database, EMPTY_FILE_CAUSES)
        except BaseException as exc:
            if hasattr(self, "conn"):
                with contextlib.suppress(sqlite3.Error):
                    self.conn.close()
            self._writer_release()
            if isinstance(exc, sqlite3.DatabaseError):
                # Ctrl-C inside a migration, a lock another program holds, a full disk:
                # each its own error; only what SQLite calls damage is StoreCorruptError.
                raise opening_error(exc, self.database) from exc
            raise

    def _mark_open(self) -> None:
        """Check the database if the last writer did not close it, then record that
        this one has it open (``close`` records a clean close)."""
        if self.settings.get("writer_state") == "open":
            self.quick_checked = True
            problems = [r[0] for r in self.conn.execute("PRAGMA quick_check(5)")]
            if problems != ["ok"]:
                raise StoreCorruptError(corrupt_message(
                    self.database, "SQLite's quick_check after the last session ended without "
                    "closing it found: " + "; ".join(problems)))
        with self.transaction():
            if self.settings.get("store_id") is None:
                self.settings.set("store_id", secrets.token_hex(16))
            self.settings.set("writer_state", "open")
            # Rows appended outside a transaction commit row by row before the index
            # takes them: a process killed in between, or another program's insert, left
            # some that only a later append would index. The commit indexes them now; only
            # then, as the index may be damaged, and the open must not fail for that.
            version = self.execute("PRAGMA user_version").fetchone()[0]
            self._unindexed = {
                table for table, since in STORE_INDEXES.items()
                if version >= since and self.execute(UNINDEXED_ROW[table]).fetchone()}
        # Another connection's commits move it from here on; this writer's own do not.
        self._data_version = self._read_data_version()

    # -- meta -------------------------------------------------------------------------
    @property
    def store_id(self) -> str | None:
        """A random id given to this database when it was created (None: written by an
        older tiermem and never opened for writing since).

        Files derived from the database (the FAISS indexes) record it, so a
        database swapped for another one is never paired with their files.
        """
        return self.settings.get("store_id")

    @property
    def location(self) -> str:
        return str(self.home) if self.home is not None else "memory"

    # -- the contract's searches and tables ---------------------------------------------
    def lexical(self, table: TextTable) -> SQLiteLexical:
        return SQLiteLexical(self, table)

    def term_cache(self, table: str) -> TermCache:
        """The words of ``table``'s full-text index read into memory so far
        (memory/store/sqlite/lexical_cache.py)."""
        if table not in self._term_caches:
            # Recall is appended to on every turn, archival on most; the cache takes the
            # rows appended as they come.
            appends = {"messages": MESSAGE_APPENDS, "passages": PASSAGE_APPENDS}.get(table)
            self._term_caches[table] = TermCache(self, table, appends)
        return self._term_caches[table]

    def vectors(self, table: VectorTable, dim: int) -> FaissIndex:
        name = ARCHIVAL_INDEX_FILE if table == "passages" else RECALL_INDEX_FILE
        return FaissIndex(self, table, dim, self.home / name if self.home else None,
                          vector_index=self.vector_index, ef_search=self.ef_search)

    def export_rows(self, table: DumpTable) -> Iterator[DumpRow]:
        return export_rows(self, table)

    def count_rows(self, table: DumpTable) -> int:
        return count_rows(self, table)

    def import_rows(self, table: DumpTable, rows: Sequence[DumpRow]) -> None:
        import_rows(self, table, rows)
        self._term_caches.clear()  # rows may come with any ids, not only appended ones

    def mark_erased_ids(self) -> None:
        mark_erased_ids(self)

    def clear_undone_evictions(self) -> None:
        clear_undone_evictions(self)

    def clear(self) -> None:
        clear_tables(self)
        self._term_caches.clear()

    def translate_error(self, exc: BaseException) -> StoreError | None:
        return translate(exc, self.database)

    def purge_erased(self) -> list[str]:
        self._check_usable()
        if self.read_only:
            raise ReadOnlyError(f"this memory ({self.home}) is open read-only; erase from "
                                f"the session that writes it")
        with self.lock:
            if self._depth:
                raise StoreError("purge_erased runs after the erasure commits, outside any "
                                 "transaction")
            return purge(self)

    @property
    def forked(self) -> bool:
        """Whether this is a forked copy of a store another process opened."""
        return self._writer is not None and self._writer.forked

    def writer_active(self) -> bool:
        # An in-memory store (no home) has no other process to share it with.
        return self._writer is not None or (self.home is not None
                                            and writer_lock_held(self.home))

    @property
    def lost(self) -> bool:
        """Never: a file, unlike a connection, is not taken away by another party."""
        return False

    def on_close(self, hook: Callable[[], None]) -> None:
        """Call ``hook`` once the store has closed, so what is kept in memory beside it (the
        FAISS indexes' graphs) is let go then, not when the last reference to it goes."""
        self._close_hooks.append(hook)

    def close(self) -> None:
        # Each step is done once and only once, so a close a Ctrl-C cut short finishes
        # what is left when it is called again (a caller that catches the Ctrl-C and
        # goes on must not find the home still locked by itself).
        forked = self.forked
        if not self.closed:
            # A forked child must leave the parent's connection alone: closing it there
            # could checkpoint the WAL under the parent.
            if not forked:
                if self._depth == 0 and not self.read_only:
                    with contextlib.suppress(StoreError, sqlite3.Error), self.transaction():
                        self.settings.set("writer_state", "closed")
                with contextlib.suppress(sqlite3.Error):
                    self.conn.close()
            self.closed = True
        self._writer_release()
        # A forked child has none of the parent's threads, and a lock one of them held at
        # the fork stays held in the child: what the hooks would stop is the parent's.
        while self._close_hooks and not forked:
            self._close_hooks.pop(0)()

    def _writer_release(self) -> None:
        if self._writer is not None:
            self._writer.release()

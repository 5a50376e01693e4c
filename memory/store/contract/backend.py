"""The backend as a whole: whole-table dumps, nested transactions, and
``StorageBackend``, which hands out the stores and indexes of one agent's memory."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Protocol

from tiermem.memory.errors import StoreError
from tiermem.memory.store.contract.indexes import LexicalIndex, VectorIndex
from tiermem.memory.store.contract.stores import (
    FactStore,
    ForgetStore,
    HistoryStore,
    MessageStore,
    PassageStore,
    SettingsStore,
)
from tiermem.memory.store.records import DumpRow, DumpTable, TextTable, VectorTable

__all__ = ["StorageBackend", "TableDump", "Transactions"]


class TableDump(Protocol):
    """Whole tables in the snapshot's column form (records.DumpRow), ids included."""

    def export_rows(self, table: DumpTable) -> Iterator[DumpRow]:
        """Every row of ``table`` in id order (tick order for history)."""
        ...

    def count_rows(self, table: DumpTable) -> int:
        """How many rows ``export_rows(table)`` gives (a snapshot's progress)."""
        ...

    def import_rows(self, table: DumpTable, rows: Sequence[DumpRow]) -> None:
        """Insert rows with the ids they carry (the table is empty, or the ids are new)."""
        ...

    def mark_erased_ids(self) -> None:
        """Raise the highest erased fact and passage ids (``ERASED_ID_KEYS``) to the highest
        ids the events and the forget audit name but no row holds, as the migration that
        added them did: rows imported from a snapshot without them get the same marks."""
        ...

    def clear_undone_evictions(self) -> None:
        """Take the eviction date off every fact in core and off its passage, as the migration
        that did so for older versions' rows did: rows imported from a snapshot one took get
        the same."""
        ...

    def clear(self) -> None:
        """Remove every row and setting of this memory (a restore that replaces it)."""
        ...


class Transactions(Protocol):
    """Nested transactions and the hooks that keep in-memory state in step with them."""

    def transaction(self) -> AbstractContextManager[None]:
        """A transaction, or a savepoint inside the one already open (the contract's rules).

        The calling thread holds ``lock`` until it ends.
        """
        ...

    @property
    def in_transaction(self) -> bool:
        ...

    @property
    def depth(self) -> int:
        """How many transactions and savepoints are open."""
        ...

    def on_begin(self, hook: Callable[[], None]) -> None:
        """Call ``hook`` when an outermost transaction begins."""
        ...

    def on_commit(self, hook: Callable[[], None]) -> None:
        """Call ``hook`` after the outermost transaction commits."""
        ...

    def on_rollback(self, hook: Callable[[], None]) -> None:
        """Call ``hook`` after any rollback, with ``depth`` already back at the level
        that was rolled back to."""
        ...

    def on_release(self, hook: Callable[[], None]) -> None:
        """Call ``hook`` after a savepoint is released into its enclosing transaction."""
        ...

    def on_change_elsewhere(self, hook: Callable[[], None], *, check: bool = False) -> None:
        """Call ``hook`` when ``catch_up`` finds another session's commit, after the
        rollback hooks (for state they do not reload, such as a vector index); with
        ``check``, before them (a hook that refuses what this session cannot read)."""
        ...

    def catch_up(self) -> bool:
        """For a read-only store: if a writer committed since the last call (or the
        open), run the checks, the rollback hooks, then the ``on_change_elsewhere``
        hooks, so in-memory state is the database's again; True if it did. A hook that
        raises leaves the catch-up owed: the next call runs it again. Never inside a
        transaction, and a writer's store returns False. Every public method of
        HierarchicalMemory calls it first, through ``reading``."""
        ...

    def reading(self) -> AbstractContextManager[None]:
        """For a read-only store: ``catch_up``, then hold one state of the database until
        the block ends (a read transaction), so what the catch-up reloaded and what the
        block reads agree although a writer commits meanwhile. Inside a transaction or
        another ``reading`` it only catches up; on a writer's store it does nothing."""
        ...


class StorageBackend(Transactions, TableDump, Protocol):
    """One agent's memory in one backend, open for writing (holding the writer lock) or
    read-only."""

    @property
    def facts(self) -> FactStore:
        ...

    @property
    def passages(self) -> PassageStore:
        ...

    @property
    def messages(self) -> MessageStore:
        ...

    @property
    def history(self) -> HistoryStore:
        ...

    @property
    def settings(self) -> SettingsStore:
        ...

    @property
    def forgetting(self) -> ForgetStore:
        ...

    @property
    def lock(self) -> AbstractContextManager[object]:
        """A re-entrant lock that threads sharing this memory take turns on: every
        transaction and every public method of HierarchicalMemory holds it."""
        ...

    @property
    def read_only(self) -> bool:
        ...

    @property
    def closed(self) -> bool:
        ...

    @property
    def forked(self) -> bool:
        """Whether this object was inherited by a forked process (which must not use it)."""
        ...

    def writer_active(self) -> bool:
        """Whether a live process holds the memory's writer lock (this one, if it writes):
        a reader tells a reindex or creation still running from one that stopped."""
        ...

    @property
    def lost(self) -> bool:
        """Whether the store can no longer be used although nobody closed it (the server
        or the network ended the connection): every later call fails until it is opened
        again."""
        ...

    @property
    def location(self) -> str:
        """Where the memory lives, for messages (a directory, or a database and agent)."""
        ...

    @property
    def store_id(self) -> str | None:
        """A random id given to this memory's storage when it was created."""
        ...

    def lexical(self, table: TextTable) -> LexicalIndex:
        """The full-text search of ``table``."""
        ...

    def vectors(self, table: VectorTable, dim: int) -> VectorIndex:
        """The dense index of ``table``, for vectors of ``dim``; call once per table."""
        ...

    def translate_error(self, exc: BaseException) -> StoreError | None:
        """The tiermem error for a backend failure a user can act on; None for any other."""
        ...

    def purge_erased(self) -> list[str]:
        """Make the content of rows deleted so far unrecoverable from this backend's own
        storage (free pages, index segments, write-ahead log) as far as it can reach.

        Call it outside any transaction, after the deletions committed; it may rewrite
        the whole database. Returns what it could not reach, in words for the user
        (empty when nothing is left anywhere it writes). A backend's derived files
        (SQLite's FAISS indexes) are rewritten by their ``VectorIndex.save``.
        """
        ...

    def close(self) -> None:
        """Record a clean close, release the writer lock; idempotent."""
        ...

"""``PostgresBackend``: one agent's memory in a PostgreSQL database (the storage contract).

Opened for writing, it holds the agent's writer lock (an advisory lock, see
memory/store/postgres/writer_lock.py) on its own connection until ``close``.
The outermost ``transaction()`` is one PostgreSQL transaction, inner ones are
savepoints; hooks let in-memory state follow commits and rollbacks exactly as
with SQLite.
"""

from __future__ import annotations

import contextlib
import os
import threading
import weakref
from collections.abc import Iterator, Sequence

import psycopg
from psycopg import errors as pg_errors

from tiermem.memory.errors import (
    ConnectionLostError,
    ReadOnlyError,
    StoreClosedError,
    StoreError,
)
from tiermem.memory.store.nesting import NestedTransactions
from tiermem.memory.store.postgres import dump
from tiermem.memory.store.postgres.connection import (
    agent_id,
    connect,
    prepare,
    privilege_error,
    public_dsn,
    refuse_newer_schema_since,
    status_advice,
    translate,
)
from tiermem.memory.store.postgres.facts import PgFacts
from tiermem.memory.store.postgres.forgetting import PgForgetting
from tiermem.memory.store.postgres.history import PgHistory, PgSettings
from tiermem.memory.store.postgres.lexical import PgLexicalIndex
from tiermem.memory.store.postgres.messages import PgMessages
from tiermem.memory.store.postgres.options import split_dsn
from tiermem.memory.store.postgres.passages import PgPassages
from tiermem.memory.store.postgres.purge import purge_after_erasure
from tiermem.memory.store.postgres.scope import Scope
from tiermem.memory.store.postgres.vector_settings import PgVectorSettings
from tiermem.memory.store.postgres.writer_lock import (
    changes_channel,
    listen_for_commits,
    release_writer_lock,
    take_writer_lock,
    writer_lock_held,
)
from tiermem.memory.store.records import DumpRow, DumpTable, TextTable
from tiermem.memory.validation import check_flag

_open: weakref.WeakSet[PostgresBackend] = weakref.WeakSet()
_fork_hook_installed = False


def _detach_after_fork() -> None:
    # A forked child shares the parent's socket to the server; closing it there would
    # end the parent's session (and drop its writer lock). Point the child's copy at
    # /dev/null so nothing the child does reaches the server.
    for backend in list(_open):
        backend.detach()


class PostgresBackend(NestedTransactions, PgVectorSettings):
    """The memory of agent ``agent`` in the database at ``dsn``.

    ``hnsw``, ``vector_index`` and ``ef_search`` choose how vectors are searched
    (memory/store/postgres/vector_settings.py). ``mark_if_new`` (a setting's key and
    value) is stored with the agent if this open creates it, in the transaction that
    creates it: a restore's mark, so no kill leaves the new agent unmarked and empty.
    """

    def __init__(self, dsn: str, agent: str, *, read_only: bool = False,
                 hnsw: bool | None = None, ef_search: int | None = None,
                 vector_index: str | None = None,
                 mark_if_new: tuple[str, str] | None = None) -> None:
        global _fork_hook_installed
        read_only = check_flag(read_only, "read_only")  # the string "false" would read as yes
        server, options = split_dsn(dsn)
        self.dsn, self.agent_name = dsn, agent
        self._server = server
        self._choose_vectors(options, hnsw, vector_index, ef_search)
        self._where = f"agent {agent!r} in {public_dsn(server)}"
        self._read_only = read_only
        self._closed = False
        self._owner_pid = os.getpid()
        self._init_transactions()
        self._lock = threading.RLock()
        self._notified = False  # a writer's commit was announced since the last catch_up
        self._listening = False  # whether the server takes LISTEN (a hot standby does not)
        self.conn = connect(server)
        self._agent_id: int | None = None
        try:
            prepare(self.conn, read_only=read_only, where=self._where, agent=agent, server=server)
            self._agent_id, self._store_id = agent_id(self.conn, agent, create=not read_only,
                                                      where=self._where,
                                                      mark_if_new=mark_if_new)
            if not read_only:
                take_writer_lock(self.conn, self._agent_id, self._where)
            else:
                self._listening = listen_for_commits(self.conn, self._agent_id, self._on_notify)
        except BaseException as exc:
            with contextlib.suppress(psycopg.Error):
                self.conn.close()
            if isinstance(exc, pg_errors.InsufficientPrivilege):
                raise privilege_error(exc, self._where) from None
            raise
        self.scope = Scope(self.conn, self._agent_id)
        # A weak reference: a backend dropped unclosed is then freed at once, and its
        # connection with it, so the writer lock it held is not kept until a cycle is
        # collected.
        self._facts = PgFacts(self.scope, weakref.proxy(self))
        self._passages = PgPassages(self.scope)
        self._messages, self._history = PgMessages(self.scope), PgHistory(self.scope)
        self._settings = PgSettings(self.scope, agent)
        self._forgetting = PgForgetting(self.scope)
        if not _fork_hook_installed:
            os.register_at_fork(after_in_child=_detach_after_fork)
            _fork_hook_installed = True
        _open.add(self)

    # -- the parts ----------------------------------------------------------------------
    @property
    def facts(self) -> PgFacts:
        return self._facts

    @property
    def passages(self) -> PgPassages:
        return self._passages

    @property
    def messages(self) -> PgMessages:
        return self._messages

    @property
    def history(self) -> PgHistory:
        return self._history

    @property
    def settings(self) -> PgSettings:
        return self._settings

    @property
    def forgetting(self) -> PgForgetting:
        return self._forgetting

    def lexical(self, table: TextTable) -> PgLexicalIndex:
        return PgLexicalIndex(self.scope, table)

    # -- state --------------------------------------------------------------------------
    @property
    def lock(self) -> threading.RLock:
        return self._lock

    @property
    def read_only(self) -> bool:
        return self._read_only

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def forked(self) -> bool:
        return os.getpid() != self._owner_pid

    @property
    def lost(self) -> bool:
        return not self._closed and self.conn.broken

    def writer_active(self) -> bool:
        return not self._read_only or writer_lock_held(self.conn, self.agent_id)

    @property
    def location(self) -> str:
        return self._where

    @property
    def store_id(self) -> str | None:
        return self._store_id

    @property
    def agent_id(self) -> int:
        assert self._agent_id is not None
        return self._agent_id

    # -- transactions (memory.store.nesting) ------------------------------------------
    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        self._check_usable()
        with self._lock:
            yield from self._transaction()

    def _transaction(self) -> Iterator[None]:
        self._check_usable()
        if self._read_only:
            raise ReadOnlyError(f"this memory ({self._where}) is open read-only, so it cannot "
                                f"be changed; open it without read_only=True to write")
        yield from self._nested()

    def _begin(self, savepoint: str | None) -> None:
        try:
            if savepoint is not None:
                self.conn.execute(f"SAVEPOINT {savepoint}")
                return
            self.conn.execute("BEGIN")
            try:
                # The schema is the database's: a newer tiermem opening any agent there
                # upgrades it while this writer is open (connection.py).
                refuse_newer_schema_since(self.conn, self._where)
            except BaseException:
                self._roll_back(None)  # nothing written: the transaction never began
                raise
        except psycopg.Error as exc:
            raise self._mapped(exc) from exc

    def _commit(self) -> None:
        # Delivered at COMMIT, and only if it commits: read-only sessions reload then.
        self.conn.execute(f"NOTIFY {changes_channel(self.agent_id)}")
        self.conn.execute("COMMIT")

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """``catch_up`` and the block in one REPEATABLE READ transaction (the contract's
        ``reading``). The writer's notices arrive only between transactions, so they are
        collected first; the catch-up's reload then runs in the transaction, whose first
        statement fixes the state it and the block read. A commit between the two is in
        that state but reloaded by the next call only: ``CoreTier.all_rows`` reads a
        reader's facts from the rows, not from its copy of core, for that."""
        self._check_usable()
        with self._lock:
            idle = self.conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
            if not self._read_only or not idle:
                self.catch_up()
                yield
                return
            if self._changed_elsewhere():
                self._catch_up_owed = True  # reloaded inside, from the transaction's state
            self.conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            try:
                self.catch_up()
                yield
            finally:
                with contextlib.suppress(psycopg.Error):
                    self.conn.execute("ROLLBACK")  # it wrote nothing: nothing to keep

    def _on_notify(self, _: psycopg.Notify) -> None:
        self._notified = True

    def _changed_elsewhere(self) -> bool:
        if not self._read_only or self._closed or self.forked:
            return False
        # The server sends what was committed before a statement with its answer, so one
        # round trip brings every commit the writer had finished (to _on_notify). That
        # statement reads the schema's newest migration: the schema is the database's, and
        # a newer tiermem opening any agent there upgrades it while this reader is open,
        # whose reads of it could then leave out what the newer one withholds, or fail on
        # a column it changed. In ``reading`` it runs again as the read transaction's first
        # statement, so the state the block reads is the one checked.
        refuse_newer_schema_since(self.conn, self._where)
        if not self._listening:
            return True  # no announcements here: read everything again, every call
        changed, self._notified = self._notified, False
        return changed

    def _release(self, savepoint: str) -> None:
        self.conn.execute(f"RELEASE SAVEPOINT {savepoint}")

    def _roll_back(self, savepoint: str | None) -> None:
        with contextlib.suppress(psycopg.OperationalError):
            if savepoint is not None:
                self.conn.execute(f"ROLLBACK TO SAVEPOINT {savepoint}")
                self.conn.execute(f"RELEASE SAVEPOINT {savepoint}")
            elif self.conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                self.conn.execute("ROLLBACK")

    def _mapped(self, exc: BaseException) -> BaseException:
        return self.translate_error(exc) or exc

    def _check_usable(self) -> None:
        if self.forked:
            raise StoreError(f"this memory ({self._where}) was opened by process "
                             f"{self._owner_pid}; a forked process must open it itself")
        if self._closed:
            raise StoreClosedError("this memory is closed; open it again to use it")

    def translate_error(self, exc: BaseException) -> StoreError | None:
        mapped = translate(exc, self._where, self._server)
        if isinstance(mapped, StoreClosedError) and not self._closed and self.conn.broken:
            # Closed by the server or the network, not by close(): what to do is not the same.
            return ConnectionLostError(
                f"the connection to PostgreSQL for {self._where} was lost earlier, so this "
                f"memory cannot be used any more", status_advice(self._server))
        return mapped

    def purge_erased(self) -> list[str]:
        """VACUUM (ANALYZE) the tables erasure deletes from: the dead row versions that
        still hold the content are removed, the planner's statistics (``pg_stats``, which
        show whole column values) are rebuilt from the rows that remain, and no query (nor
        a snapshot of this agent) reaches them (memory/store/postgres/purge.py; what a role
        that does not own the tables could not do comes first in what is returned).

        What PostgreSQL keeps beyond that is the server's, not this backend's: the
        freed space of a page keeps old bytes until reused (``VACUUM FULL`` by the
        database owner rewrites the tables), the write-ahead log keeps the changes
        until its segments are recycled, and replicas, WAL archives and backups
        keep theirs.
        """
        self._check_usable()
        if self._read_only:
            raise ReadOnlyError(f"this memory ({self._where}) is open read-only; erase from "
                                f"the session that writes it")
        with self._lock:
            if self.in_transaction:
                raise StoreError("purge_erased runs after the erasure commits, outside any "
                                 "transaction")
            try:
                # The connection is in autocommit mode, which VACUUM needs.
                return purge_after_erasure(self.conn, self._where)
            except psycopg.Error as exc:
                raise self._mapped(exc) from exc

    # -- whole tables -------------------------------------------------------------------
    def export_rows(self, table: DumpTable) -> Iterator[DumpRow]:
        return dump.export_rows(self.scope, table)

    def count_rows(self, table: DumpTable) -> int:
        return dump.count_rows(self.scope, table)

    def import_rows(self, table: DumpTable, rows: Sequence[DumpRow]) -> None:
        dump.import_rows(self.scope, table, rows)

    def mark_erased_ids(self) -> None:
        dump.mark_erased_ids(self.scope)

    def clear_undone_evictions(self) -> None:
        dump.clear_undone_evictions(self.scope)

    def clear(self) -> None:
        dump.clear(self.scope)

    # -- closing ------------------------------------------------------------------------
    def detach(self) -> None:
        """Forget the connection without telling the server (in a forked child)."""
        if not self.forked or self._closed:
            return
        with contextlib.suppress(OSError, psycopg.Error):
            devnull = os.open(os.devnull, os.O_RDWR)
            os.dup2(devnull, self.conn.fileno())
            os.close(devnull)
        self._closed = True

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        _open.discard(self)
        if self.forked:
            return
        if not self._read_only and self._agent_id is not None:
            release_writer_lock(self.conn, self._agent_id)
        with contextlib.suppress(psycopg.Error):
            self.conn.close()

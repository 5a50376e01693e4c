"""Recall's full-text index takes a transaction's messages in one statement
(memory/store/sqlite/transactions.py, ``index_appended``), and holds after any mix of
appends, searches, rollbacks, forgetting and erasure exactly what it would if each message
had been indexed as it was appended."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fts_helpers import check_index_as_rebuilt
from memory_helpers import SQLITE_FORGETS_IN_BULK, make_memory, sqlite_schema_at_version

from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.records import Message
from tiermem.memory.store.sqlite import SQLiteStore, schema
from tiermem.memory.store.sqlite.forgetting import SQLiteForgetting
from tiermem.memory.store.sqlite.schema_search import INDEXED_ROWS

#: The migration that took the index's insert trigger away.
INDEX_PER_TRANSACTION = next(m.number for m in schema.MIGRATIONS
                             if m.name.startswith("recall's full-text index written"))

WORDS = ("apple", "banana", "cherry", "damson", "elder", "fig", "grape", "hazel")


class _Undone(Exception):
    pass


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    m = make_memory(recall_dense=False)
    yield m
    m.close()


def _store(m: HierarchicalMemory) -> SQLiteStore:
    assert isinstance(m.store, SQLiteStore)
    return m.store


def _index_pages(m: HierarchicalMemory) -> int:
    """Rows of the index's data table: every segment FTS5 writes adds at least one."""
    return int(_store(m).execute("SELECT count(*) FROM messages_fts_data").fetchone()[0])


def _found(m: HierarchicalMemory, query: str) -> list[int]:
    return sorted(hit.id for hit in m.recall.search(query, k=20))


def _turn(m: HierarchicalMemory, turn: int, messages: int = 7) -> None:
    """A turn as the agent writes it: one transaction, each message appended on its own."""
    with m.store.transaction():
        for i in range(messages):
            m.recall.append("assistant" if i % 2 else "user",
                            f"turn{turn} {WORDS[(turn + i) % len(WORDS)]} {i}", turn)


def test_a_turns_messages_make_one_segment(memory: HierarchicalMemory) -> None:
    _turn(memory, 0)
    before = _index_pages(memory)
    _turn(memory, 1)
    # One leaf for the turn's seven messages; one statement per message wrote seven.
    assert _index_pages(memory) - before == 1
    assert _found(memory, "turn1") == list(range(8, 15))


def _check_index(m: HierarchicalMemory) -> None:
    """The index holds what one built afresh from the messages would: each live one with
    its context."""
    check_index_as_rebuilt(_store(m), "messages", "content, context",
                           f"{INDEXED_ROWS} WHERE m.forgotten_at IS NULL")


def test_the_index_holds_what_the_messages_say_after_mixed_writes(
        memory: HierarchicalMemory) -> None:
    store = _store(memory)
    for turn in range(3):
        _turn(memory, turn, messages=3)
    with store.transaction():
        kept = memory.recall.append("user", "a kiwi before the search", 10)
        # Searched inside the transaction that appended it: found.
        assert _found(memory, "kiwi") == [kept]
        # Indexed inside the savepoint, by the search there; that rollback unindexes it.
        early = memory.recall.append("assistant", "a walnut before the savepoint", 10)
        with contextlib.suppress(_Undone), store.transaction():
            memory.recall.append("assistant", "a mango undone with its savepoint", 10)
            assert len(_found(memory, "mango")) == 1
            raise _Undone
        assert len(_found(memory, "mango")) == 0
        assert _found(memory, "walnut") == [early]
        memory.recall.append("assistant", "a lemon after the rollback", 10)
    _check_index(memory)
    with store.transaction():
        held = memory.recall.append("user", "a plum forgotten before any search", 11)
        after = memory.recall.append("assistant", "a pear said next", 11)
        store.forgetting.forget((), (), [held], 1.0)
        memory.recall.append("user", "a quince appended last", 11)
    _check_index(memory)
    assert _found(memory, "plum") == []
    # The pear's own message, and the quince's, which holds it as context.
    assert _found(memory, "pear") == [after, after + 1]
    with store.transaction():
        gone = memory.recall.append("user", "a date erased before the commit", 12)
        memory.recall.append("assistant", "an olive said next", 12)
        memory.recall.erase([gone, held], "not to be kept")
    _check_index(memory)
    with contextlib.suppress(_Undone), store.transaction():
        memory.recall.append("user", "a lime in a turn rolled back", 13)
        raise _Undone
    assert len(_found(memory, "lime")) == 0
    _turn(memory, 14, messages=2)
    _check_index(memory)


def test_a_store_indexed_by_the_old_trigger_upgrades_and_stays_whole(tmp_path: Path) -> None:
    with (sqlite_schema_at_version(INDEX_PER_TRANSACTION - 1),
          make_memory(tmp_path, recall_dense=False) as before):
        for turn in range(3):
            _turn(before, turn, messages=3)
    with make_memory(tmp_path, recall_dense=False) as after:
        _check_index(after)
        with after.store.transaction():
            forgotten = after.recall.append("user", "a plum said after the upgrade", 5)
            after.store.forgetting.forget((), (), [forgotten - 1, forgotten], 1.0)
            after.recall.append("assistant", "a pear said next", 5)
        _check_index(after)
        assert _found(after, "turn1") == [4, 5, 6, 7]  # 7 holds 6 as its context


def test_a_message_committed_before_its_index_entry_is_indexed_at_the_next_open(
        tmp_path: Path) -> None:
    # Appended outside a transaction, each row commits on its own; a process killed
    # before the index is written (or another program's insert) leaves one unindexed.
    SQLiteStore(tmp_path).close()
    pid = os.fork()
    if pid == 0:  # the child: the row commits, then the process dies before the index
        try:
            store = SQLiteStore(tmp_path)
            store.index_appended = lambda: os._exit(9)  # type: ignore[method-assign]
            store.messages.append_many([Message(turn=1, role="user",
                                                content="a zebra crossing",
                                                created_at=time.time())])
        finally:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 9
    with make_memory(tmp_path, recall_dense=False) as after:
        assert len(after.recall) == 1
        assert _found(after, "zebra") == [1]
        _check_index(after)


def test_the_open_indexes_messages_only_from_the_migration_that_drops_the_trigger() -> None:
    from tiermem.memory.store.sqlite.schema import MIGRATIONS, STORE_INDEXES

    migration = MIGRATIONS[STORE_INDEXES["messages"] - 1]
    assert migration.number == STORE_INDEXES["messages"]
    assert migration.name == "recall's full-text index written once a transaction"


def _channel(m: HierarchicalMemory, messages: int) -> list[int]:
    """A turn of ``messages`` messages: user and assistant ones, a tool result and an empty
    reply among them (neither gives its text as context)."""
    roles = ("user", "assistant", "tool", "assistant", "user")
    with m.store.transaction():
        return m.store.messages.append_many([
            Message(turn=20, role=roles[i % len(roles)], created_at=1.0,
                    content="" if i % 7 == 3 else f"line{i} {WORDS[i % len(WORDS)]}")
            for i in range(messages)])


@pytest.mark.parametrize("chosen", [
    lambda ids: ids[::2],                                   # every other one
    lambda ids: ids[3:40] + ids[55:56] + ids[-5:],          # runs, a single one, the last
    lambda ids: [i for i in ids if i % 5 in (1, 2, 4)],     # spread across the roles
])
def test_many_messages_forgotten_at_once_leave_the_index_as_a_rebuild_holds_it(
        memory: HierarchicalMemory, chosen: Any) -> None:
    ids = _channel(memory, 80)
    store = _store(memory)
    with store.transaction():
        store.forgetting.forget((), (), ids[10:12], 1.0)  # forgotten before, named again
        forgotten = store.forgetting.forget((), (), chosen(ids) + ids[10:12], 2.0)
    assert set(forgotten.messages) == set(chosen(ids)) - set(ids[10:12])
    _check_index(memory)
    memory.recall.erase(ids[::3], "not to be kept")  # the heirs' new entries delete cleanly
    _check_index(memory)


def test_a_forget_that_fails_between_its_statements_changes_nothing(
        memory: HierarchicalMemory, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = _channel(memory, 30)
    marked = SQLiteForgetting._mark

    def full_disk(self: SQLiteForgetting, table: str, *args: Any) -> list[int]:
        if table == "messages":  # once the index entries are deleted, before the tombstones
            raise sqlite3.OperationalError("database or disk is full")
        return marked(self, table, *args)

    monkeypatch.setattr(SQLiteForgetting, "_mark", full_disk)
    with pytest.raises(sqlite3.OperationalError):
        _store(memory).forgetting.forget((), (), ids[5:20], 1.0)
    monkeypatch.undo()
    assert len(memory.recall) == 30
    _check_index(memory)
    # The next message holds it as context, past the tool result, which takes none.
    assert _found(memory, "line6") == [ids[6], ids[8]]


def _work_forgetting(messages: int) -> int:
    """The work of forgetting every message of a turn of ``messages``, in thousands of
    SQLite's virtual machine instructions (a trigger's own counted): a count, not a time."""
    with make_memory(recall_dense=False) as m:
        ids = _channel(m, messages)
        work = [0]

        def count() -> int:
            work[0] += 1
            return 0  # go on

        _store(m).conn.set_progress_handler(count, 1000)
        _store(m).forgetting.forget((), (), ids, 1.0)
        _store(m).conn.set_progress_handler(None, 0)
        assert len(m.recall) == 0
        return work[0]


def test_forgetting_four_times_the_messages_is_four_times_the_work() -> None:
    # A trigger per message searched back past the messages forgotten before it in the same
    # statement, so four times the messages took sixteen times the work.
    assert _work_forgetting(1000) <= 5 * _work_forgetting(250)


def test_a_store_before_bulk_forgetting_forgets_by_its_triggers_and_upgrades_whole(
        tmp_path: Path) -> None:
    # Its triggers take each forgotten message out of the index, as its version's code
    # left them to: the statements that replaced them, run beside them, deleted each entry
    # twice and FTS5 found its index malformed.
    with (sqlite_schema_at_version(SQLITE_FORGETS_IN_BULK - 1),
          make_memory(tmp_path, recall_dense=False) as before):
        triggers = {str(r[0]) for r in _store(before).execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger'")}
        assert {"messages_forget", "messages_indexed_before_forget"} <= triggers
        ids = _channel(before, 40)
        forgotten = _store(before).forgetting.forget((), (), ids[3:20:2], 1.0)
        assert forgotten.messages == tuple(ids[3:20:2])
        _check_index(before)
    with make_memory(tmp_path, recall_dense=False) as after:
        _check_index(after)
        _store(after).forgetting.forget((), (), ids[20:30], 2.0)
        _check_index(after)

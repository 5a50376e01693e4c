"""Erasing many of recall's messages at once in SQLite: a few statements however many they
are (memory/store/sqlite/messages.py), leaving the full-text index as one rebuilt from the
messages kept, and the work grows with the number erased, not faster."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import SQLITE_ERASES_IN_BULK, make_memory, sqlite_schema_at_version
from test_recall_index_writes import _channel, _check_index, _found, _store

from tiermem.memory.hierarchy import HierarchicalMemory


def _erasures(m: HierarchicalMemory) -> list[tuple[int, str, float]]:
    return [(int(r[0]), str(r[1]), float(r[2])) for r in _store(m).execute(
        "SELECT message_id, reason, erased_at FROM erasures ORDER BY id")]


@pytest.mark.parametrize("chosen", [
    lambda ids: ids[::2],                                   # every other one
    lambda ids: ids[3:40] + ids[55:56] + ids[-5:],          # runs, a single one, the last
    lambda ids: [i for i in ids if i % 5 in (1, 2, 4)],     # spread across the roles
])
def test_many_messages_erased_at_once_leave_the_index_as_a_rebuild_holds_it(
        chosen: Callable[[list[int]], list[int]]) -> None:
    with make_memory(recall_dense=False) as memory:
        ids = _channel(memory, 80)
        store = _store(memory)
        store.forgetting.forget((), (), ids[10:13], 1.0)  # erased too, forgotten before
        named = chosen(ids) + ids[10:13] + [ids[-1] + 50]  # and an id never given
        erased = store.messages.erase(named, "not to be kept", 2.0)
        gone = sorted(set(chosen(ids) + ids[10:13]))
        assert [m.id for m in erased] == gone
        # One erasure a message, in id order, recorded before its row went.
        assert _erasures(memory) == [(i, "not to be kept", 2.0) for i in gone]
        assert store.messages.get_many(ids).keys() == set(ids) - set(gone) - set(ids[10:13])
        _check_index(memory)
        kept = sorted(set(ids) - set(gone))
        store.forgetting.forget((), (), kept[::4], 3.0)  # the heirs' new entries leave cleanly
        _check_index(memory)
        memory.recall.append("user", "a quince appended last", 21)
        _check_index(memory)
        assert _found(memory, "quince") == [ids[-1] + 1]


def test_an_erasure_that_fails_between_its_statements_changes_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    with make_memory(recall_dense=False) as memory:
        ids = _channel(memory, 30)
        store = _store(memory)
        execute = store.execute

        def full_disk(sql: str, *args: Any) -> Any:
            if sql.startswith("DELETE FROM messages"):  # once the index entries are deleted
                raise sqlite3.OperationalError("database or disk is full")
            return execute(sql, *args)

        monkeypatch.setattr(store, "execute", full_disk)
        with pytest.raises(sqlite3.OperationalError):
            store.messages.erase(ids[5:20], "not to be kept", 1.0)
        monkeypatch.undo()
        assert len(memory.recall) == 30 and _erasures(memory) == []
        _check_index(memory)
        # The next message holds it as context, past the tool result, which takes none.
        assert _found(memory, "line6") == [ids[6], ids[8]]


def _index_blocks_erasing(messages: int, chosen: Callable[[list[int]], list[int]]
                          ) -> tuple[int, int]:
    """The blocks recall's full-text index held, then the blocks FTS5 wrote (each a
    statement of its own on its data table), erasing the ``chosen`` messages of a turn of
    ``messages``: counts, not times."""
    with make_memory(recall_dense=False) as m:
        ids = _channel(m, messages)
        store = _store(m)
        store.index_appended()
        held = int(store.execute("SELECT count(*) FROM messages_fts_data").fetchone()[0])
        written = [0]

        def count(statement: str) -> None:
            if statement.startswith("-- REPLACE INTO 'main'.'messages_fts_data'"):
                written[0] += 1

        store.conn.set_trace_callback(count)
        erased = store.messages.erase(chosen(ids), "not to be kept", 1.0)
        store.conn.set_trace_callback(None)
        assert len(erased) == len(chosen(ids))
        _check_index(m)
        return held, written[0]


@pytest.mark.parametrize("chosen", [lambda ids: ids[1:], lambda ids: ids[::2]])
def test_erasing_many_messages_writes_the_index_a_few_times_not_once_a_message(
        chosen: Callable[[list[int]], list[int]]) -> None:
    # Two statements a message, each a savepoint at which FTS5 wrote its pending changes
    # out as a segment and read and wrote again its list of segments, which grew with
    # them: 1,000 messages wrote 2,785 blocks of an index of 7, 4,000 wrote 11,172, and
    # each message cost more the more there were. The deletions, then a merge, write it
    # about twice at most.
    held, written = _index_blocks_erasing(1000, chosen)
    assert 0 < written <= 2 * held


def test_a_store_before_bulk_erasing_erases_by_its_triggers_and_upgrades_whole(
        tmp_path: Path) -> None:
    # Its triggers take each erased message out of the index, as its version's code left
    # them to: the statements that replaced them, run beside them, would delete each entry
    # twice, which FTS5 finds malformed.
    with (sqlite_schema_at_version(SQLITE_ERASES_IN_BULK - 1),
          make_memory(tmp_path, recall_dense=False) as before):
        triggers = {str(r[0]) for r in _store(before).execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger'")}
        assert {"messages_ad", "messages_indexed_before_delete"} <= triggers
        ids = _channel(before, 40)
        erased = _store(before).messages.erase(ids[3:20:2], "not to be kept", 1.0)
        assert [m.id for m in erased] == ids[3:20:2]
        _check_index(before)
    with make_memory(tmp_path, recall_dense=False) as after:
        _check_index(after)
        assert [m.id for m in _store(after).messages.erase(ids[20:30], "gone", 2.0)] \
            == ids[20:30]
        _check_index(after)
        assert [i for i, _, _ in _erasures(after)] == ids[3:20:2] + ids[20:30]


"""A message a program erases or forgets in SQL, as the schema lets it (an erasure recorded
before the row is deleted; a ``forgotten_at`` set, never cleared), leaves recall's full-text
index as the store's own erasing and forgetting do (memory/store/sqlite/schema_search.py,
``ERASE_OUTSIDE_THE_STORE`` and ``FORGET_OUTSIDE_THE_STORE``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from memory_helpers import make_memory, writable_database
from test_recall_index_writes import _check_index, _found, _store

from tiermem.memory.store.sqlite import DB_FILE


def _erase(conn: sqlite3.Connection, message: int) -> None:
    conn.execute("INSERT INTO erasures (message_id, reason, erased_at)"
                 " VALUES (?, 'by hand', 0)", (message,))
    conn.execute("DELETE FROM messages WHERE id = ?", (message,))


def _forget(conn: sqlite3.Connection, message: int) -> None:
    conn.execute("UPDATE messages SET forgotten_at = 5 WHERE id = ?", (message,))


@pytest.mark.parametrize("take_out", [_erase, _forget])
def test_a_message_taken_out_in_sql_by_another_program_leaves_the_index_whole(
        tmp_path: Path, take_out: Callable[[sqlite3.Connection, int], None]) -> None:
    # The index kept its entry: its text was still found through the next message's
    # context, and taking that message out later deleted an entry FTS5 does not hold.
    with make_memory(tmp_path, recall_dense=False) as memory:
        ids = [memory.recall.append("user" if i % 2 == 0 else "assistant",
                                    f"note{i} quince{i}", 1) for i in range(6)]
    other = writable_database(tmp_path / DB_FILE)
    with other:
        # A message appended in the same transaction, not indexed yet, follows them.
        other.execute("INSERT INTO messages (turn, role, content, created_at)"
                      " VALUES (2, 'user', 'note6 a medlar', 0)")
        take_out(other, ids[2])
        take_out(other, ids[5])
    other.close()
    with make_memory(tmp_path, recall_dense=False) as memory:
        _check_index(memory)
        assert _found(memory, "quince2") == [] and _found(memory, "medlar") == [ids[5] + 1]
        _store(memory).forgetting.forget((), (), [ids[3]], 6.0)
        assert [m.id for m in _store(memory).messages.erase([ids[4]], "gone", 7.0)] \
            == [ids[4]]
        _check_index(memory)
        # The next message kept holds it as context, past those taken out.
        assert _found(memory, "quince1") == [ids[1], ids[5] + 1]

"""Core's and archival's full-text indexes take a transaction's new rows in one statement
(memory/store/sqlite/transactions.py, ``index_appended``), and hold after any mix of
appends, edits, searches, rollbacks, forgetting and erasure exactly what an index built
afresh from the rows would."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from fts_helpers import check_index_as_rebuilt
from memory_helpers import make_memory, sqlite_schema_at_version, writable_database

from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.sqlite import DB_FILE, SQLiteStore, schema
from tiermem.memory.text.symbols import SQL_FUNCTION

TABLES = ("facts", "passages")


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with make_memory(recall_dense=False) as m:
        yield m


def _sqlite(m: HierarchicalMemory) -> SQLiteStore:
    store = m.store
    assert isinstance(store, SQLiteStore)
    return store


def _leaves(store: SQLiteStore, table: str) -> int:
    """Rows of the index's data table: each segment FTS5 writes adds at least one, and with
    merges off (``_no_merges``) none goes away."""
    return int(store.execute(f"SELECT count(*) FROM {table}_fts_data").fetchone()[0])


def _no_merges(store: SQLiteStore) -> None:
    with store.transaction():
        for table in TABLES:
            fts = f"{table}_fts"
            store.execute(f"INSERT INTO {fts} ({fts}, rank) VALUES ('automerge', 0)")
            store.execute(f"INSERT INTO {fts} ({fts}, rank) VALUES ('crisismerge', 1000)")


def _check_indexes(m: HierarchicalMemory) -> None:
    for table in TABLES:
        check_index_as_rebuilt(_sqlite(m), table, "text", f"SELECT id, {SQL_FUNCTION}(text)"
                               f" FROM {table} WHERE forgotten_at IS NULL")


def _found(m: HierarchicalMemory, table: str, word: str) -> list[int]:
    """The rows the index finds ``word`` in (the store's own search, which writes the rows
    appended into the index first)."""
    return sorted(_sqlite(m).lexical(table).scores([word]))  # type: ignore[arg-type]


def _edit(m: HierarchicalMemory, fact_id: int, text: str) -> None:
    fact = m.store.facts.get(fact_id)
    assert fact is not None
    m.store.facts.update(dataclasses.replace(fact, text=text))


def test_a_turn_writes_one_segment_into_each_index() -> None:
    # A core of one fact: each new fact evicts the one before, which files its passage.
    with make_memory(core_limit=1, core_limit_unit="facts", recall_dense=False) as m:
        store = _sqlite(m)
        _no_merges(store)
        m.add_fact("the first fact in core")
        before = {table: _leaves(store, table) for table in TABLES}
        passages = store.passages.count()
        with m.interaction():
            m.add_fact("the user's train leaves at nine")
            m.archival_insert("the model files a note about the train")
        assert store.passages.count() == passages + 2  # the evicted fact's and the note
        # One segment for the two passages, where a statement each wrote two; and the
        # evicted fact, saved with its text unchanged, is not taken out and put back.
        assert {table: _leaves(store, table) - before[table] for table in TABLES} == {
            "facts": 1, "passages": 1}
        assert _found(m, "passages", "train") == [passages + 2]
        _check_indexes(m)


def test_each_index_holds_what_its_rows_say_after_mixed_writes(
        memory: HierarchicalMemory) -> None:
    store = _sqlite(memory)
    with store.transaction():
        kept = memory.archival_insert("a kiwi filed first")
        fact = memory.add_fact("the user grows a walnut tree")
        # Searched inside the transaction that wrote them: found.
        assert _found(memory, "passages", "kiwi") == [kept]
        assert _found(memory, "facts", "walnut") == [fact]
        # Indexed inside the savepoint, by the search there; that rollback unindexes them.
        with pytest.raises(LookupError, match="undone"), store.transaction():
            memory.archival_insert("a mango undone with its savepoint")
            memory.add_fact("the user once liked mango")
            assert len(_found(memory, "passages", "mango")) == 1
            assert len(_found(memory, "facts", "mango")) == 1
            raise LookupError("undone")
        assert _found(memory, "passages", "mango") == []
        assert _found(memory, "facts", "mango") == []
        pending = memory.add_fact("the user keeps a plum jar")
        _edit(memory, pending, "the user keeps a pear jar")  # edited before any search
        _edit(memory, fact, "the user grows a hazel tree")  # edited once indexed
        memory.archival_insert("a lemon filed after the rollback")
    _check_indexes(memory)
    assert _found(memory, "facts", "walnut") == []
    assert _found(memory, "facts", "hazel") == [fact]
    with store.transaction():
        gone = memory.archival_insert("a date erased before any search")
        late = memory.add_fact("the user is learning the cello")
        store.passages.delete([gone, kept])
        store.facts.delete([late])
        forgotten = memory.archival_insert("a quince forgotten before any search")
        store.forgetting.forget([fact], [forgotten], (), 1.0)
        olive = memory.archival_insert("an olive filed last")
    _check_indexes(memory)
    with store.transaction():
        # Replaced text, and a fact saved whole with its text as it was.
        store.passages.replace_text(olive, "an olive, and a fig too",
                                    np.zeros(memory.embedder.dim, np.float32), "test")
        same = store.facts.get(pending)
        assert same is not None
        store.facts.update(dataclasses.replace(same, access_count=same.access_count + 1))
    _check_indexes(memory)
    assert _found(memory, "passages", "fig") == [olive]
    with pytest.raises(LookupError, match="undone"), store.transaction():
        memory.archival_insert("a lime in a turn rolled back")
        memory.add_fact("the user owns a lime tree")
        raise LookupError("undone")
    assert _found(memory, "passages", "lime") == []
    memory.archival_insert("a melon filed outside any transaction")
    _check_indexes(memory)
    assert len(_found(memory, "passages", "melon")) == 1


def test_archival_s_words_in_memory_take_a_transaction_s_passages_as_appends(
        memory: HierarchicalMemory) -> None:
    store = _sqlite(memory)
    for n in range(6):
        memory.archival_insert(f"a note on the rota number {n}")
    assert store.lexical("passages").common_terms(["rota"], rows=6) == {"rota"}
    cache = store.term_cache("passages")
    read = cache.rows_read
    with store.transaction():
        memory.archival_insert("the rota moved to friday")
        memory.archival_insert("another rota note")
    assert store.lexical("passages").common_terms(["rota"], rows=8) == {"rota"}
    assert (cache.rows_read, cache.rows_appended) == (read, 2)


def test_a_store_indexed_by_the_old_triggers_upgrades_and_stays_whole(tmp_path: Path) -> None:
    # The migration that took these indexes' insert triggers away.
    per_transaction = next(m.number for m in schema.MIGRATIONS if m.name.startswith(
        "core's and archival's full-text indexes written"))
    with (sqlite_schema_at_version(per_transaction - 1),
          make_memory(tmp_path, recall_dense=False) as before):
        fact = before.add_fact("the user rides a tandem")
        first = before.archival_insert("a tandem note filed before the upgrade")
        before.archival_insert("a second note filed before the upgrade")
    with make_memory(tmp_path, recall_dense=False) as after:
        _check_indexes(after)
        with after.store.transaction():
            new = after.archival_insert("a tandem note filed after the upgrade")
            after.store.forgetting.forget((), [first], (), 1.0)
            _edit(after, fact, "the user rides a unicycle")
        _check_indexes(after)
        assert _found(after, "passages", "tandem") == [new]
        assert _found(after, "facts", "unicycle") == [fact]


def test_rows_committed_without_their_index_entries_are_indexed_at_the_next_open(
        tmp_path: Path) -> None:
    make_memory(tmp_path, recall_dense=False).close()
    # Another program's inserts (or a process killed between a row's commit outside a
    # transaction and its index's write) leave rows the index does not hold.
    with contextlib.closing(writable_database(tmp_path / DB_FILE)) as conn, conn:
        conn.execute("INSERT INTO passages (text, created_at) VALUES ('a zebra crossing', 0)")
        conn.execute("INSERT INTO facts (text, norm, durability, tier, created_at,"
                     " created_tick, last_access, last_counted_tick, tokens) VALUES"
                     " ('the user saw a zebra', 'zebra', 'durable', 'archival', 0, 0, 0, 0, 5)")
    with make_memory(tmp_path, recall_dense=False) as after:
        _check_indexes(after)
        assert _found(after, "passages", "zebra") == [1]
        assert _found(after, "facts", "zebra") == [1]

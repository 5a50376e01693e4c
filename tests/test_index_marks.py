"""A word a mark of no width splits ("867\u20605309") is indexed as it looks too, so exact
matching, which reads texts without such marks, finds the text the request looks like; a
database an earlier version indexed without it is indexed again when it opens."""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

import pytest
from fts_helpers import check_index_as_rebuilt
from leak_helpers import read_paths_showing
from memory_helpers import (
    backend_place,
    make_memory,
    postgres_schema_at_version,
    sqlite_schema_at_version,
)

from tests.test_postgres_stats_fold import _assert_committed_counts_right
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.sqlite import schema
from tiermem.memory.store.sqlite.schema_search import INDEXED_ROWS
from tiermem.memory.text.symbols import SQL_FUNCTION, indexed_text

PIN = "my PIN is 867\u20605309"


@pytest.fixture(params=["sqlite", "postgres"])
def where(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, Any]:
    return backend_place(request, tmp_path, "marks")


def _stored(memory: HierarchicalMemory) -> None:
    memory.add_fact(PIN, "durable")
    memory.archival_insert(PIN)
    memory.recall.append("user", PIN, turn=1)
    memory.recall.append("assistant", "Noted.", turn=1)


def _erased_as_it_looks(memory: HierarchicalMemory) -> None:
    # The index held "867" and "5309": the request's word "8675309" found no candidate,
    # so it was "nothing forgotten (unmatched ...)" and the PIN stayed.
    result = memory.forget("my PIN is 8675309", erase=True)
    assert result.outcome == "matched"
    found = result.forgotten
    assert (len(found.facts), len(found.passages), len(found.messages)) == (1, 1, 1)
    assert memory.facts() == [] and read_paths_showing(memory, "5309") == []
    assert [h.text for h in memory.recall_search("noted", k=5).hits] == ["Noted."]


def test_a_word_split_by_a_mark_of_no_width_is_erased_as_it_looks(
        where: dict[str, Any]) -> None:
    with make_memory(**where) as memory:
        _stored(memory)
        # Its pieces are words as before.
        assert PIN in [h.text for h in memory.recall_search("5309", k=5).hits]
        _erased_as_it_looks(memory)


def _older_reading(text: str | None) -> str | None:
    """What the full-text index read of a text before migration 22: symbols as words."""
    if text is None or text.isascii():
        return text
    return "".join(f" sym{ord(c):x}x " if unicodedata.category(c) == "So" else c
                   for c in text)


def test_an_index_written_before_is_written_again_as_it_reads_now(tmp_path: Path) -> None:
    with sqlite_schema_at_version(21), pytest.MonkeyPatch.context() as old:
        old.setattr(schema, "indexed_text", _older_reading)
        with make_memory(tmp_path) as memory:
            _stored(memory)
    with make_memory(tmp_path) as memory:
        store = memory.store
        for table in ("facts", "passages"):
            check_index_as_rebuilt(store, table, "text", f"SELECT id, {SQL_FUNCTION}(text)"  # type: ignore[arg-type]
                                   f" FROM {table} WHERE forgotten_at IS NULL")
        check_index_as_rebuilt(store, "messages", "content, context",  # type: ignore[arg-type]
                               f"{INDEXED_ROWS} WHERE m.forgotten_at IS NULL")
        _erased_as_it_looks(memory)


def test_rows_postgres_stored_before_are_indexed_as_they_read_now(
        postgres_dsn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from tiermem.memory.store.postgres import schema as pg_schema

    postgres_schema_at_version(monkeypatch, len(pg_schema.MIGRATIONS) - 1)
    monkeypatch.setattr("tiermem.memory.store.postgres.scope.indexed_text", _older_reading)
    with make_memory(store=postgres_dsn, agent="old") as memory:
        _stored(memory)
        memory.archival_insert(f"tea\u2615 and {PIN}")  # its symbol read as a word too
    monkeypatch.undo()
    with make_memory(store=postgres_dsn, agent="old") as memory:
        rows = memory.store.conn.execute(  # type: ignore[attr-defined]
            "SELECT coalesce(search_text, text) FROM tiermem.passages ORDER BY id").fetchall()
        assert [r[0] for r in rows] == [indexed_text(PIN), indexed_text(f"tea\u2615 and {PIN}")]
        answer = memory.store.conn.execute(  # type: ignore[attr-defined]
            "SELECT context_text FROM tiermem.messages WHERE content = 'Noted.'").fetchone()
        assert answer == (indexed_text(PIN),)
        for table in ("facts", "passages"):  # BM25's counts hold the words added
            _assert_committed_counts_right(memory.store, table)  # type: ignore[arg-type]
        assert memory.forget("tea\u2615 and my PIN is 8675309", erase=True).outcome == "matched"
        _erased_as_it_looks(memory)

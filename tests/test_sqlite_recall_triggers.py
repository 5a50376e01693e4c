"""The SQLite backend refuses an edit or a delete of a message in SQL itself: recall is
append-only even for a tool that bypasses tiermem (its triggers,
memory/store/sqlite/schema_tables.py)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest
from memory_helpers import make_memory

from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.sqlite import SQLiteStore


@pytest.fixture
def chat() -> Iterator[HierarchicalMemory]:
    m = make_memory()
    m.process_interaction("The deploy failed on the billing service.", "Rolling back.")
    m.process_interaction("The rollback finished.", "Good, billing is healthy.")
    yield m
    m.close()


def _store(m: HierarchicalMemory) -> SQLiteStore:
    assert isinstance(m.store, SQLiteStore)
    return m.store


@pytest.mark.parametrize("statement", [
    "UPDATE messages SET content = 'forged' WHERE id = 1",
    "UPDATE messages SET role = 'assistant' WHERE id = 1",
    "UPDATE messages SET created_at = 0",
    "UPDATE messages SET turn = 99 WHERE id = 2",
    "DELETE FROM messages WHERE id = 1",
    "DELETE FROM messages",
])
def test_messages_cannot_be_edited_or_deleted(chat: HierarchicalMemory, statement: str) -> None:
    before = chat.snapshot()
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        _store(chat).execute(statement)
    assert chat.snapshot() == before


def test_after_an_erasure_the_other_messages_stay_protected(chat: HierarchicalMemory) -> None:
    assert chat.recall.erase([1, 2], "user asked to forget the incident") == 2
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        _store(chat).execute("DELETE FROM messages WHERE id = 3")

"""What the bench does only on the SQLite backend: its own integrity check, its connection
(to count SQLite's work, or to fail a COMMIT as a full disk does), and its FAISS indexes.

Everything else the bench checks goes through the storage contract.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from tiermem.memory import HierarchicalMemory
from tiermem.memory.store.contract import VectorIndex
from tiermem.memory.store.sqlite import SQLiteStore
from tiermem.memory.store.sqlite.vectors import FaissIndex


def sqlite_store(memory: HierarchicalMemory) -> SQLiteStore:
    """The memory's store, which these checks need to be SQLite's."""
    if not isinstance(memory.store, SQLiteStore):
        raise TypeError(f"this check needs a memory on SQLite, not {type(memory.store).__name__}")
    return memory.store


def integrity_problems(memory: HierarchicalMemory) -> list[str]:
    """SQLite's integrity_check of the database (nothing to check on another backend)."""
    if not isinstance(memory.store, SQLiteStore):
        return []
    rows = [r[0] for r in memory.store.execute("PRAGMA integrity_check")]
    return [] if rows == ["ok"] else [f"integrity_check: {'; '.join(rows[:3])}"]


def faiss_index(vectors: VectorIndex | None) -> FaissIndex:
    """A tier's vector index, which these measurements need to be SQLite's FAISS index."""
    if not isinstance(vectors, FaissIndex):
        raise TypeError(f"this check needs the FAISS index, not {type(vectors).__name__}")
    return vectors


def stored_tables(memory: HierarchicalMemory) -> list[str]:
    """Every table of the SQLite schema that holds state: all but the derived full-text
    indexes and the settings. Read from the schema rather than listed, so a table added
    later that snapshots forget is caught (empty on another backend)."""
    if not isinstance(memory.store, SQLiteStore):
        return []
    rows = memory.store.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        " AND name NOT LIKE '%_fts%' AND name != 'meta' ORDER BY name")
    return [r[0] for r in rows]


class FullAtCommit:
    """A connection on which the ``fail_at``-th COMMIT fails as SQLITE_FULL does."""

    def __init__(self, conn: sqlite3.Connection, fail_at: int) -> None:
        self._conn = conn
        self._commits = 0
        self._fail_at = fail_at

    def execute(self, sql: str, params: Any = ()) -> sqlite3.Cursor:
        if sql.strip().upper() == "COMMIT":
            self._commits += 1
            if self._commits == self._fail_at:
                # SQLite rolls the transaction back itself when it cannot write it out.
                self._conn.execute("ROLLBACK")
                raise _disk_full()
        return self._conn.execute(sql, params)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def _disk_full() -> sqlite3.OperationalError:
    """The error SQLite raises when a write does not fit, with its result code as a real one
    carries (code, not message, is what tiermem reads)."""
    error = sqlite3.OperationalError("database or disk is full")
    error.sqlite_errorcode = sqlite3.SQLITE_FULL
    return error

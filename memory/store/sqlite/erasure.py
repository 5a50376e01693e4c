"""Physical erasure in SQLite: rows deleted with what was derived from them, then nothing left
in the database's files.

Deleting a row is not enough for its bytes to leave the files:

- a deleted cell stays in its page, and a freed page in the file, until reused;
  ``secure_delete`` (on for every writer, memory/store/sqlite/connection.py) zeroes both;
- FTS5 records a deletion as a new index segment and keeps the old segment, tokens
  included, until segments are merged: ``optimize`` merges each index into one
  segment without the deleted rows;
- the write-ahead log keeps every page written since its last reset, the old
  content among them: ``wal_checkpoint(TRUNCATE)`` copies it into the database and
  empties the file;
- pages moved around by b-tree rebalancing may leave old bytes in unused parts of
  pages that stay in use, which no pragma promises to clear: ``VACUUM`` rebuilds
  the database from its live rows alone, into pages written fresh (with the
  temporary copy in memory, so it never reaches a temporary file), and a second
  checkpoint empties the log it went through.

The FAISS indexes are derived files, rewritten whole by ``FaissIndex.save``.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tiermem.memory.store.sqlite.filters import CHUNK
from tiermem.memory.store.sqlite.ids import note_erased

if TYPE_CHECKING:
    from tiermem.memory.store.sqlite.store import SQLiteStore

_TEXT_INDEXES = ("facts_fts", "passages_fts", "messages_fts")
#: The tables ``ids_where`` and ``delete_rows`` may name (they are interpolated into SQL).
_TABLES = {"facts": ("source_message_id",), "passages": ("fact_id", "source_message_id")}


def ids_where(store: SQLiteStore, table: str, column: str, values: Sequence[int]) -> list[int]:
    """Ids of the rows of ``table`` whose ``column`` is one of ``values``, in id order."""
    if column not in _TABLES.get(table, ()):
        raise ValueError(f"not a link column: {table}.{column}")
    found: set[int] = set()
    unique = list(dict.fromkeys(values))
    for start in range(0, len(unique), CHUNK):
        chunk = unique[start : start + CHUNK]
        found.update(int(r[0]) for r in store.execute(
            f"SELECT id FROM {table} WHERE {column} IN ({','.join('?' * len(chunk))})",
            tuple(chunk)))
    return sorted(found)


def delete_rows(store: SQLiteStore, table: str, ids: Sequence[int]) -> None:
    """Delete the rows of ``ids`` from ``table`` (its triggers take them out of its
    full-text index), and keep their ids from being given again (memory/store/sqlite/ids.py)."""
    if table not in _TABLES:
        raise ValueError(f"not a table erasure deletes from directly: {table!r}")
    unique = list(dict.fromkeys(ids))
    for start in range(0, len(unique), CHUNK):
        chunk = unique[start : start + CHUNK]
        store.execute(f"DELETE FROM {table} WHERE id IN ({','.join('?' * len(chunk))})",
                      tuple(chunk))
    note_erased(store, table, unique)


def purge(store: SQLiteStore) -> list[str]:
    """Merge the full-text indexes, empty the write-ahead log and rebuild the database
    (module docstring); returns what could not be reached."""
    left: list[str] = []
    with store.transaction():
        for index in _TEXT_INDEXES:
            store.execute(f"INSERT INTO {index} ({index}) VALUES ('optimize')")
    conn = store.conn
    if not _checkpoint(conn):
        left.append("the write-ahead log could not be emptied before the rebuild")
    conn.execute("PRAGMA temp_store = MEMORY")
    try:
        store.execute("VACUUM")
    finally:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("PRAGMA temp_store = DEFAULT")
    if store.home is not None and not _checkpoint(conn):
        left.append(f"another process was reading {store.database}, so its write-ahead "
                    f"log (-wal) still holds erased pages; close every reader and erase "
                    f"again (or reopen the memory) to empty it")
    return left


def _checkpoint(conn: sqlite3.Connection) -> bool:
    """Copy the whole log into the database and truncate it; False if a reader held it."""
    busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    return not busy

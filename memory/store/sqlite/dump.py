"""Whole tables in and out of SQLite, in the snapshot's column form (records.DumpRow)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from tiermem.memory.store.records import DUMP_TABLES, DumpRow, DumpTable
from tiermem.memory.store.sqlite.errors import read_errors
from tiermem.memory.store.sqlite.files import FILE_META_KEYS, REWRITES_KEY
from tiermem.memory.store.sqlite.forgetting import leave_index, listed_ids
from tiermem.memory.store.sqlite.schema import run_script
from tiermem.memory.store.sqlite.schema_search import APPENDED_INTO_INDEX
from tiermem.memory.store.sqlite.schema_tables import ERASED_ID_MARKS, UNDONE_EVICTIONS
from tiermem.memory.store.sqlite.vectors import bump_generation

if TYPE_CHECKING:
    from tiermem.memory.store.sqlite.store import SQLiteStore

_VECTOR_TABLES = ("passages", "messages")


def _checked(table: str) -> str:
    # Table names are interpolated into SQL, so only the known ones pass.
    if table not in DUMP_TABLES:
        raise ValueError(f"not a table of the memory: {table!r}")
    return table


def export_rows(store: SQLiteStore, table: DumpTable) -> Iterator[DumpRow]:
    # Rows copied out (a snapshot, a migrate's source) are read a cursor step at a time,
    # after the statement returned: a failure there is said as a failed read of the memory.
    with read_errors(store.database, f"the {table} table"):
        for row in store.execute(f"SELECT * FROM {_checked(table)} ORDER BY rowid"):
            yield dict(row)


def count_rows(store: SQLiteStore, table: DumpTable) -> int:
    with read_errors(store.database, f"the {table} table"):
        return int(store.execute(f"SELECT count(*) FROM {_checked(table)}").fetchone()[0])


def import_rows(store: SQLiteStore, table: DumpTable, rows: Sequence[DumpRow]) -> None:
    if not rows:
        return
    # Column names come from the caller's row model, checked against the table's own.
    columns = tuple(rows[0])
    known = {r[1] for r in store.execute(f"PRAGMA table_info({_checked(table)})")}
    unknown = [c for c in columns if c not in known]
    if unknown:
        raise ValueError(f"{table} has no column {unknown[0]!r}")
    store.executemany(
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
        [tuple(row[c] for c in columns) for row in rows])
    if table in _VECTOR_TABLES:
        bump_generation(store, table)
    if table in APPENDED_INTO_INDEX:
        store.rows_appended(table)
    if table in ("messages", "erasures"):
        _count_rewrite(store)


def mark_erased_ids(store: SQLiteStore) -> None:
    """Migration 11 once more, for rows imported after the migrations ran on empty tables."""
    run_script(ERASED_ID_MARKS, store.execute)


def clear_undone_evictions(store: SQLiteStore) -> None:
    """Migration 13 once more, for rows imported after the migrations ran on empty tables."""
    run_script(UNDONE_EVICTIONS, store.execute)


def _count_rewrite(store: SQLiteStore) -> None:
    """Rows imported or cleared may take ids and erasures that rows read before had."""
    store.settings.set(REWRITES_KEY, int(store.settings.get(REWRITES_KEY, "0") or 0) + 1)


def clear_tables(store: SQLiteStore) -> None:
    """Every row and setting gone; the file's own identity (``FILE_META_KEYS``) stays."""
    # Recall refuses a delete without an erasure recorded first (the schema's triggers).
    store.execute("INSERT INTO erasures (message_id, reason, erased_at)"
                  " SELECT id, 'cleared for a restore', 0 FROM messages")
    unindex_messages(store)
    for dumped in DUMP_TABLES:
        store.execute(f"DELETE FROM {dumped}")
    marks = ",".join("?" * len(FILE_META_KEYS))
    store.execute(f"DELETE FROM meta WHERE key NOT IN ({marks})", FILE_META_KEYS)
    for table in _VECTOR_TABLES:
        bump_generation(store, table)
    _count_rewrite(store)


def unindex_messages(store: SQLiteStore) -> None:
    """Take every message out of recall's index before the rows go, as an erasure does (no
    trigger does it since schema migration 18). Not by emptying the index whole: rows put
    back with the same ids and lengths would leave its records as they were, and a process
    holding its words in memory would not see that they changed (lexical_appends.py)."""
    leave_index(store, listed_ids(int(r[0]) for r in store.execute("SELECT id FROM messages")))

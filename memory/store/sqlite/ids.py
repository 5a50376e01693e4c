"""New ids in SQLite: a table's next id is past every id it ever gave, its erased rows' too.

Left to itself, SQLite gives a new row of an ``INTEGER PRIMARY KEY`` table the largest
rowid in it plus one: once the newest row is erased, the next row stored would take its
id, and the erasure record, a forget request, an event or a note naming that id would name
an unrelated row. So a new row's id is past the highest id erased as well. An erased message
keeps its id in its erasure record (indexed, so the highest is one lookup); an erased fact or
passage raises the setting of ``ERASED_ID_KEYS`` in the erasure's own transaction, so a
process killed at any point leaves the rows and the mark together.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tiermem.memory.store.records import ERASED_ID_KEYS

if TYPE_CHECKING:
    from tiermem.memory.store.sqlite.store import SQLiteStore

#: The largest rowid SQLite gives; past it, SQLite chooses new rowids at random.
LAST_ROWID = 2**63 - 1


def _highest_erased(table: str) -> str:
    if table == "messages":
        return "(SELECT max(message_id) FROM erasures)"
    return f"(SELECT CAST(value AS INTEGER) FROM meta WHERE key = '{ERASED_ID_KEYS[table]}')"


def next_id_sql(table: str) -> str:
    """A SQL expression: the id the next row of ``table`` takes, or NULL past the last rowid
    (SQLite then chooses one)."""
    if table not in ("messages", *ERASED_ID_KEYS):
        raise ValueError(f"not a table whose ids are kept from reuse: {table!r}")
    top = (f"max(coalesce((SELECT max(id) FROM {table}), 0),"
           f" coalesce({_highest_erased(table)}, 0))")
    return f"(SELECT CASE WHEN top < {LAST_ROWID} THEN top + 1 END FROM (SELECT {top} AS top))"


def next_ids(conn: sqlite3.Connection, table: str, count: int) -> list[int | None]:
    """The ids of ``count`` rows about to be inserted into ``table``, in order, with None
    for those past the last rowid; one query for the batch."""
    if not count:
        return []
    first = conn.execute(f"SELECT {next_id_sql(table)}").fetchone()[0]
    return [first + n if first is not None and first + n <= LAST_ROWID else None
            for n in range(count)]


def note_erased(store: SQLiteStore, table: str, ids: Sequence[int]) -> None:
    """Record that the rows ``ids`` of ``table`` (facts or passages) were erased (call in the
    transaction that deletes them)."""
    if not ids:
        return
    store.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE"
        " SET value = max(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER))",
        (ERASED_ID_KEYS[table], str(max(ids))))

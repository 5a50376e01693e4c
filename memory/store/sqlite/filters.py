"""A search's ``RowFilter`` as an SQL condition on the base table (aliased ``b``).

A full-text search of messages that keeps every user and assistant message
(recall's searches: no dates, and roles that include both) can drop only the
others, tool and system messages. Such a search tests each word match against
the index of those others' ids (``messages_unspoken``) instead of joining its
row: a message's row holds its text and its 1.5 kB vector, so reading the rows
of recall's 2,000-match window cost 5-8 ms at 1M messages, and the index
lookups 0.3 ms.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tiermem.memory.store.records import RowFilter
from tiermem.memory.store.sqlite.schema_tables import UNSPOKEN, UNSPOKEN_INDEX

if TYPE_CHECKING:
    from tiermem.memory.store.sqlite.store import SQLiteStore

#: Ids per ``IN (...)`` list: under SQLite's historical limit of 999 parameters.
CHUNK = 900


def filter_sql(table: str, filt: RowFilter, alias: str = "b") -> tuple[str, tuple[Any, ...]]:
    """The conditions of ``filt`` that need the row (all but ``below``), ANDed, with their
    parameters; an empty string when there are none. ``alias`` names the row's table."""
    parts: list[str] = []
    params: list[Any] = []
    if table == "messages":
        if filt.hide_tool is not None:
            parts.append(f"NOT ({alias}.role = 'tool' AND coalesce({alias}.tool_name, '') = ?)")
            params.append(filt.hide_tool)
        if filt.roles:
            parts.append(f"{alias}.role IN ({','.join('?' * len(filt.roles))})")
            params.extend(filt.roles)
    if table == "passages" and filt.tags:
        marks = ",".join("?" * len(filt.tags))
        parts.append(f"EXISTS (SELECT 1 FROM json_each({alias}.tags) WHERE value IN ({marks}))")
        params.extend(filt.tags)
    if filt.start is not None:
        parts.append(f"{alias}.created_at >= ?")
        params.append(filt.start)
    if filt.end is not None:
        parts.append(f"{alias}.created_at <= ?")
        params.append(filt.end)
    if table == "passages" and filt.was_in_core is not None:
        parts.append(f"{alias}.was_in_core = ?")
        params.append(int(filt.was_in_core))
    return " AND ".join(parts), tuple(params)


def keeps_spoken(table: str, filt: RowFilter) -> bool:
    """Whether ``filt`` keeps every user and assistant message (it may drop others)."""
    return (table == "messages" and filt.start is None and filt.end is None
            and (not filt.roles or {"user", "assistant"} <= set(filt.roles)))


def match_clauses(table: str, filt: RowFilter) -> tuple[str, list[str], list[Any]]:
    """The FROM clause, the WHERE conditions (the first is ``MATCH ?``) and the filter's
    parameters of a full-text query on ``table`` (its FTS5 index aliased ``f``) that keeps
    the rows passing ``filt``."""
    fts_table = f"{table}_fts"
    condition, condition_params = filter_sql(table, filt)
    # Every FTS row has its base row, so without a filter the join is only cost.
    source = (f"FROM {fts_table} f JOIN {table} b ON b.id = f.rowid" if condition
              else f"FROM {fts_table} f")
    if condition and keeps_spoken(table, filt):
        # Only a row in the index of the other messages can fail (module docstring).
        condition = (f"NOT EXISTS (SELECT 1 FROM messages x INDEXED BY {UNSPOKEN_INDEX}"
                     f" WHERE x.id = f.rowid AND x.{UNSPOKEN}"
                     f" AND NOT ({filter_sql(table, filt, 'x')[0]}))")
        source = f"FROM {fts_table} f"
    where, params = [f"{fts_table} MATCH ?"], list[Any]()
    if filt.below is not None:
        where.append("f.rowid < ?")
        params.append(filt.below)
    if condition:
        where.append(f"({condition})")
        params.extend(condition_params)
    return source, where, params


def passing_ids(store: SQLiteStore, table: str, ids: Sequence[int], filt: RowFilter) -> list[int]:
    """Those of ``ids`` (in order) whose rows pass ``filt``."""
    if filt.below is not None:
        ids = [i for i in ids if i < filt.below]
    sql, params = filter_sql(table, filt)
    if not sql or not ids:
        return list(ids)
    allowed: set[int] = set()
    for start in range(0, len(ids), CHUNK):
        chunk = list(ids[start : start + CHUNK])
        marks = ",".join("?" * len(chunk))
        allowed.update(r[0] for r in store.execute(
            f"SELECT b.id FROM {table} b WHERE b.id IN ({marks}) AND ({sql})", (*chunk, *params)))
    return [i for i in ids if i in allowed]

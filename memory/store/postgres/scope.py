"""One agent's connection to PostgreSQL (``Scope``) and what the tables' statements share:
a row's full-text columns, batched inserts, row filters, and vectors.

Every statement names the agent (``agent_id = %s`` first), so no query of one
agent can see another's rows. New ids are the agent's largest id plus one, as
SQLite numbers rows; only the agent's single writer inserts, so two inserts
never race for an id. A message's, fact's or passage's id is also past the
highest one erased (``next_id``), so an id never names two rows: the erasure
record, a forget request or an event naming an erased row names no other.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import psycopg

from tiermem.memory.store.bounds import check_vectors
from tiermem.memory.store.records import ERASED_ID_KEYS, RowFilter
from tiermem.memory.store.references import check_dimensions
from tiermem.memory.text.symbols import indexed_text

_WORD = re.compile(r"[^\W_]+")


def text_columns(text: str) -> tuple[str | None, int]:
    """``search_text`` (None when the indexed text is the text) and ``n_words`` of a row."""
    indexed = indexed_text(text) or ""
    return (None if indexed == text else indexed), len(_WORD.findall(indexed))


class Scope:
    """One agent's connection: every table object runs its statements through it."""

    def __init__(self, conn: psycopg.Connection, agent: int) -> None:
        self.conn, self.agent = conn, agent

    def rows(self, query: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return execute(self.conn, query, (self.agent, *params)).fetchall()

    def one(self, query: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        return execute(self.conn, query, (self.agent, *params)).fetchone()

    def value(self, query: str, params: Sequence[Any] = ()) -> Any:
        row = self.one(query, params)
        return None if row is None else row[0]

    def setting(self, key: str) -> str | None:
        value = self.value(
            "SELECT value FROM tiermem.settings WHERE agent_id = %s AND key = %s", (key,))
        return None if value is None else str(value)

    def run(self, query: str, params: Sequence[Any] = ()) -> None:
        execute(self.conn, query, (self.agent, *params))

    def next_id(self, table: str) -> int:
        erased = _HIGHEST_ERASED.get(table)
        if erased is None:
            return int(self.value(f"SELECT coalesce(max(id), 0) + 1 FROM tiermem.{table} "
                                  f"WHERE agent_id = %s"))
        return int(self.value(
            f"SELECT greatest((SELECT coalesce(max(id), 0) FROM tiermem.{table} "
            f"WHERE agent_id = %s), coalesce(({erased}), 0)) + 1", (self.agent,)))

    def note_erased(self, table: str, ids: Sequence[int]) -> None:
        """Record that the rows ``ids`` of ``table`` (facts or passages) were erased (call in
        the transaction that deletes them)."""
        if ids:
            self.run("INSERT INTO tiermem.settings (agent_id, key, value) VALUES (%s, %s, %s) "
                     "ON CONFLICT (agent_id, key) DO UPDATE SET value = "
                     "greatest(tiermem.settings.value::bigint, excluded.value::bigint)::text",
                     (ERASED_ID_KEYS[table], str(max(ids))))


def execute(conn: psycopg.Connection, query: str,
            params: Sequence[Any]) -> psycopg.Cursor[tuple[Any, ...]]:
    """``conn.execute``, a statement given a list never prepared on the server. psycopg
    prepares a statement on its fifth run, and PostgreSQL may then run a generic plan,
    planned for a list of ten, in which ``col = ANY($1)`` compares each row with the
    whole list, hashed only when the list is a constant: without an index on the column
    and before the table is analysed, 2,000 ids over 40,000 facts took 2 s instead of
    0.02 s. Unprepared, each run is planned for its own list, as the prepared one's first
    five runs were."""
    listed = any(isinstance(param, list) for param in params)
    return conn.execute(query, params, prepare=False if listed else None)


#: The highest id erased from each table whose ids must never name two rows: a message's is
#: in its erasure record (indexed), a fact's or passage's in a setting written with the erasure.
_HIGHEST_ERASED = {
    "messages": "SELECT max(message_id) FROM tiermem.erasures WHERE agent_id = %s",
    **{table: f"SELECT value::bigint FROM tiermem.settings WHERE agent_id = %s "
              f"AND key = '{key}'" for table, key in ERASED_ID_KEYS.items()},
}


#: PostgreSQL's limit on the parameters of one statement.
MAX_PARAMETERS = 65535


def insert_rows(scope: Scope, table: str, columns: Sequence[str],
                rows: Sequence[Sequence[Any]]) -> None:
    """Insert ``rows`` in as few statements as the parameter limit allows: the tables'
    statement triggers (text and lexeme counts) then run once per batch, not per row."""
    per_statement = max(1, MAX_PARAMETERS // len(columns))
    one = "(" + ", ".join(["%s"] * len(columns)) + ")"
    for start in range(0, len(rows), per_statement):
        chunk = rows[start:start + per_statement]
        scope.conn.execute(
            f"INSERT INTO tiermem.{table} ({', '.join(columns)}) VALUES "
            + ", ".join([one] * len(chunk)), [value for row in chunk for value in row])


def filter_sql(filt: RowFilter, table: str) -> tuple[str, list[Any]]:
    """``filt`` as conditions on the row (aliased ``b``), with their parameters."""
    parts: list[str] = []
    params: list[Any] = []
    if filt.start is not None:
        parts.append("b.created_at >= %s")
        params.append(filt.start)
    if filt.end is not None:
        parts.append("b.created_at <= %s")
        params.append(filt.end)
    if filt.below is not None:
        parts.append("b.id < %s")
        params.append(filt.below)
    if table == "passages":
        if filt.tags:
            parts.append("b.tags::jsonb ?| %s")
            params.append(list(filt.tags))
        if filt.was_in_core is not None:
            parts.append("b.was_in_core = %s")
            params.append(filt.was_in_core)
    if table == "messages":
        if filt.roles:
            parts.append("b.role = ANY(%s)")
            params.append(list(filt.roles))
        if filt.hide_tool:
            parts.append("NOT (b.role = 'tool' AND coalesce(b.tool_name, '') = %s)")
            params.append(filt.hide_tool)
    return " AND ".join(parts), params


def rows_passing(scope: Scope, table: str, ids: Sequence[int], filt: RowFilter) -> list[int]:
    """Those of ``ids`` (in the order given) whose rows of ``table`` pass ``filt``."""
    if not ids:
        return []
    where, params = filter_sql(filt, table)
    found = {int(r[0]) for r in scope.rows(
        f"SELECT b.id FROM tiermem.{table} b WHERE b.agent_id = %s AND b.id = ANY(%s::bigint[])"
        + (f" AND {where}" if where else ""), [list(ids), *params])}
    return [i for i in ids if i in found]


def as_vector(embedding: np.ndarray | None) -> np.ndarray | None:
    """``embedding`` as the float32 array a ``vector`` column takes (None stays None)."""
    return None if embedding is None else np.asarray(embedding, dtype=np.float32)


def store_embeddings(scope: Scope, table: str, ids: Sequence[int], vectors: np.ndarray,
                     embedder_id: str) -> None:
    """Store row ``i`` of ``vectors`` as the vector of ``ids[i]`` in ``table``."""
    check_vectors(vectors, embedder_id, f"{table[:-1]} embedding")
    check_dimensions(((v, embedder_id) for v in vectors), scope.setting,
                     f"{table[:-1]} embedding")
    # One statement, so the update triggers run once.
    scope.conn.execute(
        f"UPDATE tiermem.{table} t SET embedding = v.e, embedder_id = %s "
        f"FROM unnest(%s::bigint[], %s::vector[]) AS v(id, e) "
        f"WHERE t.agent_id = %s AND t.id = v.id",
        (embedder_id, [int(i) for i in ids], [np.asarray(v, dtype=np.float32) for v in vectors],
         scope.agent))

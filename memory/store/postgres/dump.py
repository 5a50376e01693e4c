"""Whole tables of one agent in the snapshot's column form, for snapshots and migration.

The columns are those of the SQLite schema (memory/schema.py), so a dump taken
from either backend loads into the other: JSON columns as JSON text,
``was_in_core`` as 0 or 1, vectors as float32 bytes.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from tiermem.memory.store.postgres.facts import FACT_COLUMNS
from tiermem.memory.store.postgres.schema_tables import erased_id_marks, undone_evictions
from tiermem.memory.store.postgres.scope import Scope, insert_rows, text_columns
from tiermem.memory.store.records import DumpRow, DumpTable, ForgetRequest, tombstone_norm

COLUMNS: dict[str, tuple[str, ...]] = {
    "facts": (*FACT_COLUMNS, "norm", "forgotten_at"),
    "passages": ("id", "text", "created_at", "tags", "metadata", "source", "was_in_core",
                 "evicted_at", "fact_id", "embedder_id", "embedding", "forgotten_at",
                 "source_message_id"),
    "messages": ("id", "turn", "role", "content", "tool_calls", "tool_call_id", "tool_name",
                 "created_at", "status", "embedder_id", "embedding", "forgotten_at"),
    "history": ("tick", "created_at", "core_facts", "core_size", "durable_in_core",
                "archival_passages", "recall_messages", "evictions", "promotions"),
    "events": ("id", "tick", "kind", "fact_id", "text", "detail", "created_at"),
    "erasures": ("id", "message_id", "reason", "erased_at"),
    "forget_requests": ForgetRequest.COLUMNS,
    "forgotten_norms": ("id", "norm_hash", "forgotten_at"),
}
#: The column whose text the full-text index reads, per table that has one.
TEXT_COLUMN = {"facts": "text", "passages": "text", "messages": "content"}
_BATCH = 2000


def export_rows(scope: Scope, table: DumpTable) -> Iterator[DumpRow]:
    columns = COLUMNS[table]
    order = "tick" if table == "history" else "id"
    last: Any = None
    while True:
        # Keyset pages: a million rows never sit in memory at once.
        rows = scope.rows(
            f"SELECT {', '.join(columns)} FROM tiermem.{table} WHERE agent_id = %s"
            + ("" if last is None else f" AND {order} > %s")
            + f" ORDER BY {order} LIMIT {_BATCH}", () if last is None else (last,))
        for row in rows:
            yield _dump_form(table, dict(zip(columns, row, strict=True)))
        if len(rows) < _BATCH:
            return
        last = rows[-1][columns.index(order)]


def count_rows(scope: Scope, table: DumpTable) -> int:
    if table not in COLUMNS:  # interpolated into SQL: only the known tables pass
        raise ValueError(f"not a table of the memory: {table!r}")
    return int(scope.value(f"SELECT count(*) FROM tiermem.{table} WHERE agent_id = %s"))


def _dump_form(table: str, row: dict[str, Any]) -> DumpRow:
    if "was_in_core" in row:
        row["was_in_core"] = int(bool(row["was_in_core"]))
    if row.get("embedding") is not None:
        vector = row["embedding"]
        row["embedding"] = np.asarray(getattr(vector, "to_numpy", lambda: vector)(),
                                      dtype=np.float32).tobytes()
    for name, value in row.items():
        if isinstance(value, np.integer):
            row[name] = int(value)
    return row


def import_rows(scope: Scope, table: DumpTable, rows: Sequence[DumpRow]) -> None:
    if not rows:
        return
    # A dump from before forgetting existed has no forgotten_at (none was forgotten).
    columns = [c for c in COLUMNS[table] if c in rows[0] or c not in ("norm", "forgotten_at")]
    text_column = TEXT_COLUMN.get(table)
    extra = ["search_text", "n_words"] if text_column else []
    values = []
    for row in rows:
        record = [_stored_form(name, row.get(name)) for name in columns]
        forgotten = row.get("forgotten_at") is not None
        if table == "facts" and "norm" not in columns:
            from tiermem.memory.text.extract import fact_norm

            record.append(tombstone_norm(row["id"]) if forgotten else fact_norm(row["text"]))
        if text_column:
            # A forgotten row stays out of full-text search (memory/store/postgres/forgetting.py).
            record.extend(("", 0) if forgotten else text_columns(row[text_column]))
        values.append((scope.agent, *record))
    names = ["agent_id", *columns, *(["norm"] if table == "facts" and "norm" not in columns
                                     else []), *extra]
    insert_rows(scope, table, names, values)


def _stored_form(name: str, value: Any) -> Any:
    if name == "was_in_core":
        return bool(value)
    if name == "embedding" and value is not None:
        return np.frombuffer(value, dtype=np.float32) if isinstance(value, bytes) else \
            np.asarray(value, dtype=np.float32)
    return value


def mark_erased_ids(scope: Scope) -> None:
    """The agent's erased-id marks, by the rule of the migration that added them, for rows
    imported after the migrations ran."""
    scope.conn.execute(erased_id_marks(scope.agent).encode())


def clear_undone_evictions(scope: Scope) -> None:
    """The agent's facts back in core and their passages without an eviction date, by the
    rule of the migration that took it off, for rows imported after the migrations ran."""
    scope.conn.execute(undone_evictions(scope.agent).encode())


def clear(scope: Scope) -> None:
    """Remove every row and setting of the agent (the agent itself stays)."""
    scope.conn.execute("SET LOCAL tiermem.clearing = 'on'")
    for table in ("erasures", "messages", "passages", "facts", "events", "history",
                  "forget_requests", "forgotten_norms", "settings"):
        scope.run(f"DELETE FROM tiermem.{table} WHERE agent_id = %s")
    scope.conn.execute("SET LOCAL tiermem.clearing = 'off'")

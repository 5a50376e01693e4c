"""Exact, JSON-serialisable snapshots of a memory, and their restore.

A snapshot holds the memory's ``MemoryConfig`` and every row of every table
that carries state (facts, passages, messages, history, events, erasures),
ids included, so access counts, timestamps, durability and tier membership
come back exactly. Embeddings are included as base64 float32 by default so a
restore needs no model; without them (or for another embedder), restore
re-embeds with the embedder given.

Restore trusts nothing in the snapshot (memory/snapshot_schema.py): fields
outside the allow-list, values out of bounds and broken invariants raise
``SnapshotError`` before anything is written. Token counts are counted again.
A core that is over its limit after the recount (a snapshot edited by hand,
or taken with another tokenizer) is brought within it the way opening with a
smaller limit does: the snapshot's own policy evicts to archival, in one
interaction (the clock advances by one). Into a directory, the new database
is built aside and renamed into place only when complete
(memory/store/sqlite/restore.py), so a failed or killed restore leaves the directory
as it was, and a retry works.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from memory.embeddings import Embedder
from memory.extract import fact_norm
from memory.recall import EMBEDDED_ROLES
from memory.snapshot_schema import (
    ROW_MODELS,
    SNAPSHOT_FORMAT,
    ValidSnapshot,
    parse_snapshot,
)
from memory.store.sqlite import SQLiteStore
from memory.store.sqlite.restore import database_aside
from memory.store.sqlite.vectors import vector_blob
from memory.tokenizer import TokenCounter

if TYPE_CHECKING:
    from memory.hierarchy import HierarchicalMemory

_BLOB_COLUMNS = {"embedding"}
_SETTINGS = ("tick", "core_seq", "embedder_id", "embedder_dim", "archival_searches",
             "archival_searches_with_hits")


def take_snapshot(memory: HierarchicalMemory, include_vectors: bool = True) -> dict[str, Any]:
    if not memory.store.in_transaction and not memory.store.read_only:
        with memory.store.transaction():
            for key, value in memory.counters.items():
                memory.store.set_meta(key, value)
    tables: dict[str, list[dict[str, Any]]] = {}
    for table in ROW_MODELS:
        rows = []
        for row in memory.store.execute(f"SELECT * FROM {table} ORDER BY rowid"):
            record = dict(row)
            for column in _BLOB_COLUMNS & record.keys():
                blob = record[column]
                record[column] = (
                    base64.b64encode(blob).decode("ascii") if blob and include_vectors else None
                )
            rows.append(record)
        tables[table] = rows
    settings: dict[str, Any] = {}
    for key in _SETTINGS:
        stored = memory.store.get_meta(key)
        settings[key] = stored if key == "embedder_id" else int(stored or 0)
    # What the layers above keep with set_state (the agent's context and summary).
    state = {key.removeprefix("state."): value for key, value in memory.store.execute(
        "SELECT key, value FROM meta WHERE key LIKE 'state.%' ORDER BY key").fetchall()}
    return {
        "format": SNAPSHOT_FORMAT,
        "config": memory.config.as_json(),
        "settings": settings,
        "state": state,
        "include_vectors": include_vectors,
        "tables": tables,
    }


def restore_snapshot(
    cls: type[HierarchicalMemory],
    snapshot: Any,
    path: str | Path | None,
    embedder: Embedder | None,
    replace: bool = False,
) -> HierarchicalMemory:
    valid = parse_snapshot(snapshot)
    if embedder is None:
        embedder = _embedder_for(valid)
    if path is None:
        memory = cls(None, config=valid.config, embedder=embedder)
        try:
            with memory.store.transaction():
                _write(memory.store, valid, embedder)
                _rebuild_indexes(memory)
            memory.core.reload()
            memory.archival.reload()
            memory.recall.reload()
            memory._reload_tick()
            for key in memory.counters:
                memory.counters[key] = int(memory.store.get_meta(key, "0") or 0)
            memory._fit_core()
        except BaseException:
            memory.close()
            raise
        return memory
    home = Path(path).expanduser()
    with database_aside(home, replace) as store, store.transaction():
        _write(store, valid, embedder)
    # Opening rebuilds the FAISS indexes from the restored vectors and fits core.
    return cls(home, embedder=embedder)


def _embedder_for(valid: ValidSnapshot) -> Embedder:
    from memory.embeddings import HashingEmbedder, default_embedder

    stored, dim = valid.settings.embedder_id or "", valid.settings.embedder_dim
    if stored.startswith("hashing-") and dim is not None and dim >= 8:
        return HashingEmbedder(dim)
    return default_embedder()


def _write(store: SQLiteStore, valid: ValidSnapshot, embedder: Embedder) -> None:
    """Every row and setting of ``valid`` into ``store`` (inside its transaction)."""
    same_model = valid.include_vectors and (embedder.id, embedder.dim) == (
        valid.settings.embedder_id, valid.settings.embedder_dim)
    count = TokenCounter().count
    for table, model in ROW_MODELS.items():
        # Column names come from the row models, never from the snapshot.
        columns = tuple(model.model_fields)
        rows = []
        for row in getattr(valid.tables, table):
            values = row.model_dump()
            if table == "facts":
                values["norm"], values["tokens"] = fact_norm(row.text), count(row.text)
            if "embedding" in values:
                vector = valid.vectors.get((table, row.id)) if same_model and (
                    values["embedder_id"] == embedder.id and _wants_vector(table, values)
                ) else None
                values["embedding"] = vector
                values["embedder_id"] = embedder.id if vector is not None else None
            rows.append(tuple(values[c] for c in columns))
        store.conn.executemany(
            f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
            rows)
    settings = valid.settings.model_dump(exclude={"embedder_id", "embedder_dim"})
    meta: dict[str, Any] = {**valid.config.to_meta(), **settings,
                            "embedder_id": embedder.id, "embedder_dim": embedder.dim}
    meta.update({f"state.{key}": value for key, value in valid.state.items()})
    for key, value in meta.items():
        store.set_meta(key, value)
    _embed_missing(store, embedder, valid.config.recall_dense)


def _wants_vector(table: str, values: dict[str, Any]) -> bool:
    """Whether the engine keeps a vector for this row (recall: user and assistant text)."""
    return table == "passages" or (values["role"] in EMBEDDED_ROLES and values["content"] != "")


def _embed_missing(store: SQLiteStore, embedder: Embedder, recall_dense: bool) -> None:
    """Embed every row that should have a vector and was restored without one."""
    _embed_rows(store, embedder, recall_dense, "embedding IS NULL")


def _embed_rows(store: SQLiteStore, embedder: Embedder, recall_dense: bool, which: str) -> None:
    passages = store.execute(f"SELECT id, text FROM passages WHERE {which} ORDER BY id")
    _write_vectors(store, "passages", passages.fetchall(), embedder)
    if recall_dense:
        marks = ",".join("?" * len(EMBEDDED_ROLES))
        messages = store.execute(
            f"SELECT id, content FROM messages WHERE {which} AND role IN ({marks})"
            " AND content != '' ORDER BY id", EMBEDDED_ROLES)
        _write_vectors(store, "messages", messages.fetchall(), embedder)


def _rebuild_indexes(memory: HierarchicalMemory) -> None:
    for index in (memory.archival.vectors, memory.recall.vectors):
        if index is not None:
            index.rebuild()
            memory.store.set_meta(f"{index.table}_vector_generation", index.generation + 1)


def _write_vectors(store: SQLiteStore, table: str, rows: list[Any], embedder: Embedder) -> None:
    for start in range(0, len(rows), 256):
        chunk = rows[start : start + 256]
        matrix: np.ndarray = embedder.embed_documents([r[1] for r in chunk])
        store.conn.executemany(
            f"UPDATE {table} SET embedding = ?, embedder_id = ? WHERE id = ?",
            [(vector_blob(v), embedder.id, r[0]) for r, v in zip(chunk, matrix, strict=True)],
        )

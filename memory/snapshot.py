"""Exact, JSON-serialisable snapshots of a memory, and their restore.

A snapshot holds every row of every table that carries state (facts,
passages, messages, history, events, erasures and settings), ids included,
so access counts, timestamps, durability and tier membership come back
exactly. Embeddings are included as base64 float32 by default so a restore
needs no model; without them, restore re-embeds with the embedder given.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from memory.config import MemoryConfig, decode_meta
from memory.embeddings import Embedder
from memory.errors import InvalidInputError

if TYPE_CHECKING:
    from memory.hierarchy import HierarchicalMemory

#: Format 2 carries the whole MemoryConfig; format 1 (settings only) still restores.
SNAPSHOT_FORMAT = "tiermem-snapshot/2"
SNAPSHOT_FORMAT_V1 = "tiermem-snapshot/1"
_TABLES = ("facts", "passages", "messages", "history", "events", "erasures")
_BLOB_COLUMNS = {"embedding"}
_SETTINGS = ("tick", "core_seq", "embedder_id", "embedder_dim", "archival_searches",
             "archival_searches_with_hits")


def take_snapshot(memory: HierarchicalMemory, include_vectors: bool = True) -> dict[str, Any]:
    if not memory.store.in_transaction:
        with memory.store.transaction():
            for key, value in memory.counters.items():
                memory.store.set_meta(key, value)
    tables: dict[str, list[dict[str, Any]]] = {}
    for table in _TABLES:
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
    settings = {key: memory.store.get_meta(key) for key in _SETTINGS}
    # What the layers above keep with set_state (the agent's context and summary).
    settings.update(memory.store.execute(
        "SELECT key, value FROM meta WHERE key LIKE 'state.%' ORDER BY key").fetchall())
    return {
        "format": SNAPSHOT_FORMAT,
        "config": memory.config.as_json(),
        "settings": settings,
        "include_vectors": include_vectors,
        "tables": tables,
    }


def restore_snapshot(
    cls: type[HierarchicalMemory],
    snapshot: dict[str, Any],
    path: str | Path | None,
    embedder: Embedder | None,
) -> HierarchicalMemory:
    if not isinstance(snapshot, dict) or snapshot.get("format") not in (
            SNAPSHOT_FORMAT, SNAPSHOT_FORMAT_V1):
        raise InvalidInputError(
            f"not a tiermem snapshot (expected format {SNAPSHOT_FORMAT!r}); pass the dict that "
            f"HierarchicalMemory.snapshot() returned, or its JSON loaded with json.load"
        )
    if path is not None and Path(path, "memory.sqlite3").exists():
        raise InvalidInputError(
            f"{path} already holds a memory; restore into an empty directory so nothing "
            f"stored there is overwritten"
        )
    settings = snapshot["settings"]
    tables = snapshot["tables"]
    if snapshot["format"] == SNAPSHOT_FORMAT_V1:
        legacy = {k: v for k, v in settings.items() if k in MemoryConfig.model_fields}
        config = MemoryConfig.parse({**decode_meta(legacy, "the snapshot's setting"),
                                     "recall_dense": snapshot.get("recall_dense", True)})
    else:
        config = MemoryConfig.parse(snapshot["config"])
    if embedder is None:
        from memory.embeddings import HashingEmbedder, default_embedder

        stored = settings.get("embedder_id") or ""
        embedder = (
            HashingEmbedder(int(settings["embedder_dim"]))
            if stored.startswith("hashing-") else default_embedder()
        )
    same_model = embedder.id == settings.get("embedder_id") and snapshot.get("include_vectors")
    memory = cls(path, config=config, embedder=embedder)
    try:
        with memory.store.transaction() as conn:
            for table in _TABLES:
                for record in tables.get(table, []):
                    values = dict(record)
                    for column in _BLOB_COLUMNS & values.keys():
                        values[column] = _vector_bytes(values[column]) if same_model else None
                    columns = ",".join(values)
                    marks = ",".join("?" * len(values))
                    conn.execute(
                        f"INSERT INTO {table} ({columns}) VALUES ({marks})", tuple(values.values())
                    )
            for key, value in settings.items():
                if value is not None and key not in ("embedder_id", "embedder_dim") and (
                        key not in MemoryConfig.model_fields):
                    memory.store.set_meta(key, value)
            if not same_model:
                _reembed(memory, embedder)
            _rebuild_indexes(memory)
        memory.core.reload()
        memory.archival.reload()
        memory.recall.reload()
        memory._reload_tick()
        for key in memory.counters:
            memory.counters[key] = int(memory.store.get_meta(key, "0") or 0)
    except BaseException:
        memory.close()
        raise
    return memory


def reembed_all(memory: HierarchicalMemory, embedder: Embedder) -> None:
    """Recompute every stored vector with ``embedder`` in one transaction."""
    with memory.store.transaction():
        _reembed(memory, embedder)
        _rebuild_indexes(memory)


def _rebuild_indexes(memory: HierarchicalMemory) -> None:
    for index in (memory.archival.vectors, memory.recall.vectors):
        if index is not None:
            index.rebuild()
            memory.store.set_meta(f"{index.table}_vector_generation", index.generation + 1)


def _vector_bytes(encoded: str | None) -> bytes | None:
    return base64.b64decode(encoded) if encoded else None


def _reembed(memory: HierarchicalMemory, embedder: Embedder) -> None:
    from memory.recall import EMBEDDED_ROLES
    from memory.vector_index import vector_blob

    passages = memory.store.execute("SELECT id, text FROM passages ORDER BY id").fetchall()
    _write_vectors(memory, "passages", passages, embedder, vector_blob)
    if memory.recall.vectors is not None:
        marks = ",".join("?" * len(EMBEDDED_ROLES))
        messages = memory.store.execute(
            f"SELECT id, content FROM messages WHERE role IN ({marks}) AND content != ''"
            " ORDER BY id", EMBEDDED_ROLES,
        ).fetchall()
        _write_vectors(memory, "messages", messages, embedder, vector_blob)


def _write_vectors(memory: HierarchicalMemory, table: str, rows: list[Any], embedder: Embedder,
                   blob: Any) -> None:
    for start in range(0, len(rows), 256):
        chunk = rows[start : start + 256]
        matrix: np.ndarray = embedder.embed_documents([r[1] for r in chunk])
        memory.store.conn.executemany(
            f"UPDATE {table} SET embedding = ?, embedder_id = ? WHERE id = ?",
            [(blob(v), embedder.id, r[0]) for r, v in zip(chunk, matrix, strict=True)],
        )

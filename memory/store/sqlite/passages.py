"""Archival passages in SQLite (the ``passages`` table, its vectors as float32 blobs)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from tiermem.memory.store.bounds import (
    check_metadata,
    check_moment,
    check_passages,
    check_text,
    check_vectors,
)
from tiermem.memory.store.records import Passage, RowFilter
from tiermem.memory.store.references import check_dimensions, check_passage_facts
from tiermem.memory.store.sqlite.erasure import delete_rows, ids_where
from tiermem.memory.store.sqlite.files import ARCHIVAL_REWRITES_KEY
from tiermem.memory.store.sqlite.filters import CHUNK, passing_ids
from tiermem.memory.store.sqlite.ids import next_ids
from tiermem.memory.store.sqlite.lexical_appends import AppendSource
from tiermem.memory.store.sqlite.schema_tables import TEXT_PREFIX
from tiermem.memory.store.sqlite.vectors import bump_generation, vector_blob
from tiermem.memory.text.symbols import SQL_FUNCTION

if TYPE_CHECKING:
    from tiermem.memory.store.sqlite.store import SQLiteStore


_INSERT = ("INSERT INTO passages (id, text, created_at, tags, metadata, source, was_in_core,"
           " evicted_at, fact_id, embedder_id, embedding, source_message_id)"
           " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)")
#: The index's rows appended after an id, for ``TermCache``: what the full-text index holds
#: for each passage not forgotten. The schema's triggers count every other change.
PASSAGE_APPENDS = AppendSource(
    rows=f"SELECT p.id, {SQL_FUNCTION}(p.text) FROM passages p"
         " WHERE p.forgotten_at IS NULL AND p.id > ? ORDER BY p.id", columns=1,
    marker=f"SELECT (SELECT value FROM meta WHERE key = '{ARCHIVAL_REWRITES_KEY}')")


def _json_list(text: str) -> list[Any]:
    # Most passages have no tags or metadata: skipping the parser for them saves about
    # a tenth of a search's time over a small tier.
    return [] if text == "[]" else cast(list[Any], json.loads(text))


def _json_object(text: str) -> dict[str, Any]:
    return {} if text == "{}" else cast(dict[str, Any], json.loads(text))


def _passage(row: sqlite3.Row) -> Passage:
    return Passage(
        id=row["id"], text=row["text"], created_at=row["created_at"],
        tags=_json_list(row["tags"]), metadata=_json_object(row["metadata"]),
        source=row["source"], was_in_core=bool(row["was_in_core"]),
        evicted_at=row["evicted_at"], fact_id=row["fact_id"], embedder_id=row["embedder_id"],
        source_message_id=row["source_message_id"])


class SQLitePassages:
    """memory.store.contract.PassageStore over the ``passages`` table."""

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store

    def count(self) -> int:
        return int(self.store.execute(
            "SELECT count(*) FROM passages WHERE forgotten_at IS NULL").fetchone()[0])

    def insert_many(self, passages: Sequence[Passage]) -> list[int]:
        """One statement for all rows, with the next ids in order (memory/store/sqlite/ids.py;
        past SQLite's last integer, SQLite chooses them and they are read one by one)."""
        check_passages(passages)
        check_passage_facts(passages, self._facts_held)
        check_dimensions(((p.embedding, p.embedder_id) for p in passages
                          if p.embedding is not None), self.store.settings.get,
                         "passage embedding")
        # The connection itself: this runs inside a transaction, which translates errors.
        conn = self.store.conn
        ids = next_ids(conn, "passages", len(passages))
        rows = ((new_id, p.text, p.created_at, json.dumps(p.tags), _json(p.metadata), p.source,
                 int(p.was_in_core), p.evicted_at, p.fact_id, p.embedder_id,
                 vector_blob(p.embedding) if p.embedding is not None else None,
                 p.source_message_id)
                for new_id, p in zip(ids, passages, strict=True))
        if None in ids:
            given = [int(conn.execute(_INSERT, row).lastrowid or 0) for row in rows]
        else:
            conn.executemany(_INSERT, rows)
            given = [i for i in ids if i is not None]
        if given:
            self.store.rows_appended("passages")
        return given

    def get_many(self, ids: Sequence[int]) -> dict[int, Passage]:
        return self._rows(ids, " AND forgotten_at IS NULL")

    def _rows(self, ids: Sequence[int], condition: str = "") -> dict[int, Passage]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self.store.execute(
            "SELECT id, text, created_at, tags, metadata, source, was_in_core, evicted_at,"
            f" fact_id, embedder_id, source_message_id FROM passages"
            f" WHERE id IN ({marks}){condition}",
            tuple(ids)).fetchall()
        return {r["id"]: _passage(r) for r in rows}

    def _facts_held(self, fact_ids: list[int]) -> set[int]:
        held: set[int] = set()
        for start in range(0, len(fact_ids), CHUNK):
            chunk = fact_ids[start : start + CHUNK]
            held.update(int(r[0]) for r in self.store.execute(
                f"SELECT id FROM facts WHERE id IN ({','.join('?' * len(chunk))})", chunk))
        return held

    def mark_evicted(self, passage_id: int, evicted_at: float) -> None:
        check_moment(evicted_at, "passage evicted_at")
        self.store.execute("UPDATE passages SET was_in_core = 1, evicted_at = ? WHERE id = ?",
                           (evicted_at, passage_id))

    def clear_evicted(self, passage_id: int) -> None:
        self.store.execute("UPDATE passages SET evicted_at = NULL WHERE id = ?", (passage_id,))

    def replace_text(self, passage_id: int, text: str, embedding: np.ndarray,
                     embedder_id: str) -> None:
        check_text(text, "passage text")
        check_vectors(embedding, embedder_id, "passage embedding")
        check_dimensions([(embedding, embedder_id)], self.store.settings.get,
                         "passage embedding")
        self.store.execute(
            "UPDATE passages SET text = ?, embedding = ?, embedder_id = ? WHERE id = ?",
            (text, vector_blob(embedding), embedder_id, passage_id))

    def set_metadata(self, passage_id: int, metadata: dict[str, object]) -> None:
        check_metadata(metadata)
        self.store.execute("UPDATE passages SET metadata = ? WHERE id = ?",
                           (_json(metadata), passage_id))

    def passing(self, ids: Sequence[int], filt: RowFilter) -> list[int]:
        return passing_ids(self.store, "passages", ids, filt)

    def holding(self, text: str) -> list[int]:
        # The index ``passages_text`` is read through its expression, spelled alike; the
        # exact comparison is "+text", since with "text = ?1" SQLite puts ?1 in place of
        # text in that expression, and then reads every row.
        rows = self.store.execute(
            f"SELECT id FROM passages WHERE substr(text, 1, {TEXT_PREFIX}) ="
            f" substr(?1, 1, {TEXT_PREFIX}) AND forgotten_at IS NULL AND +text = ?1"
            " ORDER BY id", (text,))
        return [int(r[0]) for r in rows]

    def texts(self, *, after_id: int = 0, limit: int | None = None,
              without_vector: bool = False) -> list[tuple[int, str]]:
        missing = " AND embedding IS NULL" if without_vector else ""
        rows = self.store.execute(
            f"SELECT id, text FROM passages WHERE id > ? AND forgotten_at IS NULL{missing}"
            " ORDER BY id LIMIT ?",
            (after_id, -1 if limit is None else limit))
        return [(int(r[0]), str(r[1])) for r in rows]

    def set_embeddings(self, ids: Sequence[int], vectors: np.ndarray,
                       embedder_id: str) -> None:
        set_embeddings(self.store, "passages", ids, vectors, embedder_id)

    def count_without_vector(self, embedder_id: str) -> int:
        return int(self.store.execute(
            "SELECT count(*) FROM passages WHERE forgotten_at IS NULL"
            " AND (embedding IS NULL OR embedder_id IS NOT ?)",
            (embedder_id,)).fetchone()[0])

    def count_through(self, last_id: int) -> int:
        return int(self.store.execute(
            "SELECT count(*) FROM passages WHERE id <= ? AND forgotten_at IS NULL",
            (last_id,)).fetchone()[0])

    def made_from(self, fact_ids: Sequence[int]) -> list[int]:
        return ids_where(self.store, "passages", "fact_id", fact_ids)

    def filed_from(self, message_ids: Sequence[int]) -> list[int]:
        return ids_where(self.store, "passages", "source_message_id", message_ids)

    def delete(self, ids: Sequence[int]) -> list[Passage]:
        # Forgotten passages too: forgetting keeps the row until it is erased.
        found = self._rows(list(dict.fromkeys(ids)))
        delete_rows(self.store, "passages", sorted(found))
        if found:
            bump_generation(self.store, "passages")
        return [found[i] for i in sorted(found)]


def set_embeddings(store: SQLiteStore, table: str, ids: Sequence[int], vectors: np.ndarray,
                   embedder_id: str) -> None:
    """Store the vectors of ``ids`` in ``table``; a saved FAISS index of it is then out of date."""
    check_vectors(vectors, embedder_id, f"{table[:-1]} embedding")
    check_dimensions(((v, embedder_id) for v in vectors), store.settings.get,
                     f"{table[:-1]} embedding")
    store.executemany(
        f"UPDATE {table} SET embedding = ?, embedder_id = ? WHERE id = ?",
        [(vector_blob(v), embedder_id, int(i)) for i, v in zip(ids, vectors, strict=True)])
    bump_generation(store, table)


def _json(metadata: dict[str, Any]) -> str:
    return json.dumps(metadata, sort_keys=True)

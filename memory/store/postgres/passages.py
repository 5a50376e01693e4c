"""Archival passages of one agent in PostgreSQL (memory.store.contract.PassageStore)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from tiermem.memory.store.bounds import (
    check_metadata,
    check_moment,
    check_passages,
    check_text,
    check_vectors,
)
from tiermem.memory.store.postgres.scope import (
    Scope,
    as_vector,
    insert_rows,
    rows_passing,
    store_embeddings,
    text_columns,
)
from tiermem.memory.store.records import Passage, RowFilter
from tiermem.memory.store.references import check_dimensions, check_passage_facts

PASSAGE_COLUMNS = ("id, text, created_at, tags, metadata, source, was_in_core, evicted_at, "
                   "fact_id, source_message_id")


def _passage(row: Sequence[Any]) -> Passage:
    (pid, text, created_at, tags, metadata, source, was_in_core, evicted_at, fact_id,
     message) = row
    return Passage(text=text, created_at=created_at, id=int(pid), tags=json.loads(tags),
                   metadata=json.loads(metadata), source=source, was_in_core=bool(was_in_core),
                   evicted_at=evicted_at, fact_id=None if fact_id is None else int(fact_id),
                   source_message_id=None if message is None else int(message))


class PgPassages:
    """memory.store.contract.PassageStore over ``tiermem.passages``."""

    def __init__(self, scope: Scope) -> None:
        self.scope = scope

    def count(self) -> int:
        return int(self.scope.value(
            "SELECT count(*) FROM tiermem.passages WHERE agent_id = %s AND forgotten_at IS NULL"))

    def insert_many(self, passages: Sequence[Passage]) -> list[int]:
        check_passages(passages)
        check_passage_facts(passages, self._facts_held)
        check_dimensions(((p.embedding, p.embedder_id) for p in passages
                          if p.embedding is not None), self.scope.setting, "passage embedding")
        if not passages:
            return []
        first = self.scope.next_id("passages")
        ids = list(range(first, first + len(passages)))
        rows = []
        for new_id, p in zip(ids, passages, strict=True):
            search_text, n_words = text_columns(p.text)
            rows.append((self.scope.agent, new_id, p.text, p.created_at, json.dumps(p.tags),
                         json.dumps(p.metadata), p.source, p.was_in_core, p.evicted_at,
                         p.fact_id, p.embedder_id, as_vector(p.embedding), search_text,
                         n_words, p.source_message_id))
        insert_rows(self.scope, "passages", (
            "agent_id", "id", "text", "created_at", "tags", "metadata", "source", "was_in_core",
            "evicted_at", "fact_id", "embedder_id", "embedding", "search_text", "n_words",
            "source_message_id"), rows)
        return ids

    def _facts_held(self, fact_ids: list[int]) -> set[int]:
        return {int(r[0]) for r in self.scope.rows(
            "SELECT id FROM tiermem.facts WHERE agent_id = %s AND id = ANY(%s::bigint[])",
            (fact_ids,))}

    def get_many(self, ids: Sequence[int]) -> dict[int, Passage]:
        if not ids:
            return {}
        return {int(r[0]): _passage(r) for r in self.scope.rows(
            f"SELECT {PASSAGE_COLUMNS} FROM tiermem.passages WHERE agent_id = %s "
            f"AND id = ANY(%s::bigint[]) AND forgotten_at IS NULL", (list(ids),))}

    def mark_evicted(self, passage_id: int, evicted_at: float) -> None:
        check_moment(evicted_at, "passage evicted_at")
        self.scope.conn.execute(
            "UPDATE tiermem.passages SET was_in_core = true, evicted_at = %s "
            "WHERE agent_id = %s AND id = %s", (evicted_at, self.scope.agent, passage_id))

    def clear_evicted(self, passage_id: int) -> None:
        self.scope.conn.execute(
            "UPDATE tiermem.passages SET evicted_at = NULL WHERE agent_id = %s AND id = %s",
            (self.scope.agent, passage_id))

    def replace_text(self, passage_id: int, text: str, embedding: np.ndarray,
                     embedder_id: str) -> None:
        check_text(text, "passage text")
        check_vectors(embedding, embedder_id, "passage embedding")
        check_dimensions([(embedding, embedder_id)], self.scope.setting, "passage embedding")
        search_text, n_words = text_columns(text)
        self.scope.conn.execute(
            "UPDATE tiermem.passages SET text = %s, search_text = %s, n_words = %s, "
            "embedding = %s, embedder_id = %s WHERE agent_id = %s AND id = %s",
            (text, search_text, n_words, as_vector(embedding), embedder_id, self.scope.agent,
             passage_id))

    def set_metadata(self, passage_id: int, metadata: dict[str, object]) -> None:
        check_metadata(metadata)
        self.scope.conn.execute(
            "UPDATE tiermem.passages SET metadata = %s WHERE agent_id = %s AND id = %s",
            (json.dumps(metadata), self.scope.agent, passage_id))

    def passing(self, ids: Sequence[int], filt: RowFilter) -> list[int]:
        return rows_passing(self.scope, "passages", ids, filt)

    def holding(self, text: str) -> list[int]:
        return [int(r[0]) for r in self.scope.rows(
            "SELECT id FROM tiermem.passages WHERE agent_id = %s AND md5(text) = md5(%s) "
            "AND forgotten_at IS NULL AND text = %s ORDER BY id", (text, text))]

    def texts(self, *, after_id: int = 0, limit: int | None = None,
              without_vector: bool = False) -> list[tuple[int, str]]:
        rows = self.scope.rows(
            "SELECT id, text FROM tiermem.passages WHERE agent_id = %s AND id > %s"
            " AND forgotten_at IS NULL"
            + (" AND embedding IS NULL" if without_vector else "") + " ORDER BY id LIMIT %s",
            (after_id, limit))
        return [(int(i), t) for i, t in rows]

    def set_embeddings(self, ids: Sequence[int], vectors: np.ndarray,
                       embedder_id: str) -> None:
        store_embeddings(self.scope, "passages", ids, vectors, embedder_id)

    def count_without_vector(self, embedder_id: str) -> int:
        return int(self.scope.value(
            "SELECT count(*) FROM tiermem.passages WHERE agent_id = %s AND forgotten_at IS NULL "
            "AND (embedding IS NULL OR embedder_id IS DISTINCT FROM %s)", (embedder_id,)))

    def count_through(self, last_id: int) -> int:
        return int(self.scope.value(
            "SELECT count(*) FROM tiermem.passages WHERE agent_id = %s AND id <= %s "
            "AND forgotten_at IS NULL",
            (last_id,)))

    def made_from(self, fact_ids: Sequence[int]) -> list[int]:
        return [int(r[0]) for r in self.scope.rows(
            "SELECT id FROM tiermem.passages WHERE agent_id = %s AND fact_id = ANY(%s::bigint[]) "
            "ORDER BY id", (list(fact_ids),))]

    def filed_from(self, message_ids: Sequence[int]) -> list[int]:
        return [int(r[0]) for r in self.scope.rows(
            "SELECT id FROM tiermem.passages WHERE agent_id = %s "
            "AND source_message_id = ANY(%s::bigint[]) ORDER BY id", (list(message_ids),))]

    def delete(self, ids: Sequence[int]) -> list[Passage]:
        gone = sorted((_passage(r) for r in self.scope.rows(
            f"DELETE FROM tiermem.passages WHERE agent_id = %s AND id = ANY(%s::bigint[]) "
            f"RETURNING {PASSAGE_COLUMNS}", (list(ids),))), key=lambda p: p.id)
        self.scope.note_erased("passages", [p.id for p in gone])
        return gone

"""Archival memory: passages with embeddings, searchable by FTS5 and FAISS together.

It holds what the agent files away and every fact core evicts. Nothing here
is ever deleted by eviction; ``created_at`` is when the passage was learned,
``evicted_at`` when core let it go.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from memory.embeddings import Embedder
from memory.errors import InvalidInputError
from memory.search import Filter, FusionWeights, date_filter, search_page
from memory.store.sqlite import SQLiteStore
from memory.store.sqlite.vectors import VectorIndex, vector_blob
from memory.types import Hit, SearchResult
from memory.validation import clean_text


@dataclass
class NewPassage:
    text: str
    tags: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    source: str = ""
    created_at: float | None = None
    was_in_core: bool = False
    evicted_at: float | None = None
    fact_id: int | None = None


class ArchivalTier:
    """The archival tier of one memory."""

    def __init__(
        self, store: SQLiteStore, embedder: Embedder, vectors: VectorIndex, weights: FusionWeights
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.vectors = vectors
        self.weights = weights
        self._count = 0
        self.reload()
        store.on_rollback(self.reload)

    def reload(self) -> None:
        self._count = int(self.store.execute("SELECT count(*) FROM passages").fetchone()[0])

    def __len__(self) -> int:
        return self._count

    def insert_many(self, items: Sequence[NewPassage]) -> list[int]:
        """Embed and store passages in the current transaction; returns their ids."""
        if not items:
            return []
        texts = [clean_text(p.text, "archival text") for p in items]
        rows = [
            (p, t, _clean_tags(p.tags), _json_object(p.metadata))
            for p, t in zip(items, texts, strict=True)
        ]
        matrix = self.embedder.embed_documents(texts)
        now = time.time()
        ids: list[int] = []
        with self.store.transaction() as conn:
            for (p, text, tags, meta), vector in zip(rows, matrix, strict=True):
                cursor = conn.execute(
                    "INSERT INTO passages (text, created_at, tags, metadata, source, was_in_core,"
                    " evicted_at, fact_id, embedder_id, embedding) VALUES (?,?,?,?,?,?,?,?,?,?)",
                    (
                        text,
                        p.created_at if p.created_at is not None else now,
                        json.dumps(tags),
                        meta,
                        p.source,
                        int(p.was_in_core),
                        p.evicted_at,
                        p.fact_id,
                        self.embedder.id,
                        vector_blob(vector),
                    ),
                )
                ids.append(int(cursor.lastrowid or 0))
            self.vectors.add(np.asarray(ids, dtype=np.int64), matrix)
            self._count += len(ids)
        return ids

    def insert(self, text: str, **fields: Any) -> int:
        return self.insert_many([NewPassage(text=text, **fields)])[0]

    def mark_evicted(self, passage_id: int, evicted_at: float, text: str | None = None) -> None:
        """Record a (re-)eviction of the passage's fact; re-embed if its text changed."""
        with self.store.transaction() as conn:
            conn.execute(
                "UPDATE passages SET was_in_core = 1, evicted_at = ? WHERE id = ?",
                (evicted_at, passage_id),
            )
            if text is not None:
                vector = self.embedder.embed_documents([text])
                conn.execute(
                    "UPDATE passages SET text = ?, embedding = ?, embedder_id = ? WHERE id = ?",
                    (text, vector_blob(vector[0]), self.embedder.id, passage_id),
                )
                ids = np.asarray([passage_id], dtype=np.int64)
                self.vectors.remove(ids)
                self.vectors.add(ids, vector)

    def update_metadata(self, passage_id: int, changes: dict[str, Any]) -> None:
        """Merge ``changes`` into the passage's metadata; a None value removes its key."""
        row = self.store.execute(
            "SELECT metadata FROM passages WHERE id = ?", (passage_id,)).fetchone()
        if row is None:
            return
        metadata = json.loads(row["metadata"])
        for key, value in changes.items():
            if value is None:
                metadata.pop(key, None)
            else:
                metadata[key] = value
        with self.store.transaction() as conn:
            conn.execute("UPDATE passages SET metadata = ? WHERE id = ?",
                         (_json_object(metadata), passage_id))

    def search(
        self,
        query: str,
        k: int = 10,
        page: int = 1,
        tags: Sequence[str] | None = None,
        start: Any = None,
        end: Any = None,
        was_in_core: bool | None = None,
        query_vector: np.ndarray | None = None,
    ) -> SearchResult:
        """Hybrid search; ``total`` is the number of matches across all pages.

        With ``prune_common`` (the default), a word found in more than half
        of the passages is left out of a query that has other words: FTS5's
        BM25 gives it an idf of almost zero, so it ranks nothing, yet it would
        make most passages matches to score, sort and count.
        """
        return search_page(
            self.store, table="passages", fts_table="passages_fts", vectors=self.vectors,
            embedder=self.embedder, weights=self.weights, rows=self._count, query=query, k=k,
            page=page, filt=_filters(tags, start, end, was_in_core), fetch=self.get_many,
            query_vector=query_vector)

    def get_many(self, ids: Sequence[int]) -> dict[int, Hit]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self.store.execute(
            "SELECT id, text, created_at, tags, metadata, was_in_core, evicted_at, fact_id"
            f" FROM passages WHERE id IN ({marks})",
            tuple(ids),
        ).fetchall()
        return {r["id"]: _hit(r) for r in rows}

    def iter_rows(self) -> Iterator[dict[str, Any]]:
        for row in self.store.execute("SELECT * FROM passages ORDER BY id"):
            yield dict(row)


def _hit(row: Any) -> Hit:
    return Hit(
        text=row["text"],
        tier="archival",
        score=0.0,
        created_at=row["created_at"],
        id=row["id"],
        was_in_core=bool(row["was_in_core"]),
        evicted_at=row["evicted_at"],
        fact_id=row["fact_id"],
        tags=json.loads(row["tags"]),
        metadata=json.loads(row["metadata"]),
    )


def _filters(
    tags: Sequence[str] | None, start: Any, end: Any, was_in_core: bool | None
) -> Filter:
    parts: list[str] = []
    params: list[Any] = []
    if tags:
        wanted = _clean_tags(tags)
        marks = ",".join("?" * len(wanted))
        parts.append(f"EXISTS (SELECT 1 FROM json_each(b.tags) WHERE value IN ({marks}))")
        params.extend(wanted)
    dates, date_params = date_filter(start, end)
    parts += dates
    params += date_params
    if was_in_core is not None:
        parts.append("b.was_in_core = ?")
        params.append(int(was_in_core))
    return Filter(" AND ".join(parts), tuple(params))


def _clean_tags(tags: Sequence[str] | None) -> list[str]:
    if tags is None:
        return []
    if isinstance(tags, str) or not all(isinstance(t, str) for t in tags):
        raise InvalidInputError("tags must be a list of strings, like ['billing', 'acme']")
    return sorted({t.strip().lower() for t in tags if t.strip()})


def _json_object(metadata: dict[str, Any] | None) -> str:
    if metadata is None:
        return "{}"
    if not isinstance(metadata, dict):
        raise InvalidInputError("metadata must be a JSON object (a dict)")
    try:
        return json.dumps(metadata, sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"metadata is not JSON-serialisable: {exc}") from None

"""Recall in SQLite (the ``messages`` and ``erasures`` tables).

The schema's triggers refuse an edit of a message and a delete without an
erasure recorded first (memory/store/sqlite/schema_tables.py).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from tiermem.memory.store.bounds import check_erasure, check_messages, check_name
from tiermem.memory.store.records import Message, RowFilter
from tiermem.memory.store.references import check_dimensions
from tiermem.memory.store.sqlite.files import REWRITES_KEY
from tiermem.memory.store.sqlite.filters import CHUNK, passing_ids
from tiermem.memory.store.sqlite.forgetting import leave_index, listed_ids
from tiermem.memory.store.sqlite.ids import next_ids
from tiermem.memory.store.sqlite.lexical import fts_match
from tiermem.memory.store.sqlite.lexical_appends import AppendSource
from tiermem.memory.store.sqlite.passages import set_embeddings
from tiermem.memory.store.sqlite.schema_search import INDEX_LISTED, INDEXED_ROWS, context_source
from tiermem.memory.store.sqlite.vectors import bump_generation, vector_blob
from tiermem.memory.validation import MAX_ID

if TYPE_CHECKING:
    from tiermem.memory.store.sqlite.store import SQLiteStore

#: The index's rows appended after an id, for ``TermCache``; a message is deleted only
#: after its erasure is recorded (the schema's triggers), so the newest erasure marks deletes.
#: A clear deletes the erasures too, and an import may bring the same number back: the count
#: of clears and imports, which only grows, marks those.
MESSAGE_APPENDS = AppendSource(
    rows=f"{INDEXED_ROWS} WHERE m.forgotten_at IS NULL AND m.id > ? ORDER BY m.id", columns=2,
    marker="SELECT coalesce((SELECT max(rowid) FROM erasures), 0),"
           f" (SELECT value FROM meta WHERE key = '{REWRITES_KEY}')")

_COLUMNS = ("id, turn, role, content, tool_calls, tool_call_id, tool_name, created_at, status,"
            " embedder_id")


def _message(row: sqlite3.Row) -> Message:
    return Message(
        id=row["id"], turn=row["turn"], role=row["role"], content=row["content"],
        created_at=row["created_at"],
        tool_calls=json.loads(row["tool_calls"]) if row["tool_calls"] else None,
        tool_call_id=row["tool_call_id"], tool_name=row["tool_name"], status=row["status"],
        embedder_id=row["embedder_id"])


class SQLiteMessages:
    """memory.store.contract.MessageStore over the ``messages`` table."""

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store

    def count(self) -> int:
        return int(self.store.execute(
            "SELECT count(*) FROM messages WHERE forgotten_at IS NULL").fetchone()[0])

    def max_id(self) -> int:
        return int(self.store.execute("SELECT coalesce(max(id), 0) FROM messages").fetchone()[0])

    def append_many(self, messages: Sequence[Message], *, bulk: bool = False) -> list[int]:
        """``bulk`` changes nothing here: the full-text index takes every message appended in
        a transaction in one statement, before it commits or recall is searched
        (``SQLiteStore.index_appended``)."""
        check_messages(messages)
        check_dimensions(((m.embedding, m.embedder_id) for m in messages
                          if m.embedding is not None), self.store.settings.get,
                         "message embedding")
        conn = self.store.conn
        ids: list[int] = []
        # Past every id given before, an erased message's too (memory/store/sqlite/ids.py).
        for new_id, m in zip(next_ids(conn, "messages", len(messages)), messages, strict=True):
            cursor = conn.execute(
                "INSERT INTO messages (id, turn, role, content, tool_calls, tool_call_id,"
                " tool_name, created_at, status, embedder_id, embedding)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (new_id, m.turn, m.role, m.content,
                 json.dumps(m.tool_calls) if m.tool_calls else None,
                 m.tool_call_id, m.tool_name, m.created_at, m.status,
                 m.embedder_id if m.embedding is not None else None,
                 vector_blob(m.embedding) if m.embedding is not None else None),
            )
            ids.append(int(cursor.lastrowid or 0))
        if ids:
            self.store.rows_appended("messages")
        return ids

    def get_many(self, ids: Sequence[int]) -> dict[int, Message]:
        return self._rows(ids, " AND forgotten_at IS NULL")

    def _rows(self, ids: Sequence[int], condition: str = "") -> dict[int, Message]:
        found: dict[int, Message] = {}
        for start in range(0, len(ids), CHUNK):
            chunk = list(ids[start : start + CHUNK])
            marks = ",".join("?" * len(chunk))
            for row in self.store.execute(
                    f"SELECT {_COLUMNS} FROM messages WHERE id IN ({marks}){condition}",
                    tuple(chunk)):
                found[row["id"]] = _message(row)
        return found

    def set_status(self, message_id: int, status: str) -> None:
        check_name(status, "message status", "'ok'")
        self.store.execute("UPDATE messages SET status = ? WHERE id = ?", (status, message_id))

    def resolve_pending(self, status: str) -> list[int]:
        check_name(status, "message status", "'ok'")
        return [int(r[0]) for r in self.store.execute(
            "UPDATE messages SET status = ? WHERE status = 'pending' RETURNING id", (status,))]

    def erase(self, message_ids: Sequence[int], reason: str, erased_at: float) -> list[Message]:
        check_erasure(reason, erased_at)
        # A forgotten message can be erased too (forgetting keeps the row until then).
        erased = sorted(self._rows(message_ids).values(), key=lambda m: m.id)
        if erased:
            # The index changes with the deletes: all of it happens or none.
            with self.store.transaction():
                erase_listed(self.store, listed_ids(m.id for m in erased), reason, erased_at)
        return erased

    def in_turns_of(self, message_ids: Sequence[int], *,
                    forgotten: bool = False) -> list[Message]:
        turns: set[int] = set()
        unique = list(dict.fromkeys(message_ids))
        for start in range(0, len(unique), CHUNK):
            chunk = unique[start : start + CHUNK]
            turns.update(int(r[0]) for r in self.store.execute(
                f"SELECT DISTINCT turn FROM messages WHERE id IN ({','.join('?' * len(chunk))})",
                tuple(chunk)))
        return self.in_turns(sorted(turns), forgotten=forgotten)

    def in_turns(self, turns: Sequence[int], *, forgotten: bool = False) -> list[Message]:
        live = "" if forgotten else " AND forgotten_at IS NULL"
        found: list[Message] = []
        ordered = sorted(set(turns))
        for start in range(0, len(ordered), CHUNK):
            chunk = ordered[start : start + CHUNK]
            found += map(_message, self.store.execute(
                f"SELECT {_COLUMNS} FROM messages"
                f" WHERE turn IN ({','.join('?' * len(chunk))}){live}", tuple(chunk)))
        return sorted(found, key=lambda m: m.id)

    def after(self, after_id: int, limit: int) -> list[Message]:
        return [_message(r) for r in self.store.execute(
            f"SELECT {_COLUMNS} FROM messages WHERE id > ? ORDER BY id LIMIT ?",
            (after_id, limit))]

    def passing(self, ids: Sequence[int], filt: RowFilter) -> list[int]:
        return passing_ids(self.store, "messages", ids, filt)

    def texts(self, roles: Sequence[str], *, after_id: int = 0, limit: int | None = None,
              ids: Sequence[int] | None = None,
              without_vector: bool = False) -> list[tuple[int, str]]:
        where = [f"role IN ({','.join('?' * len(roles))})", "content != ''", "id > ?",
                 "forgotten_at IS NULL"]
        params: list[object] = [*roles, after_id]
        if without_vector:
            where.append("embedding IS NULL")
        if ids is not None:
            if not ids:
                return []
            where.append(f"id IN ({','.join('?' * len(ids))})")
            params.extend(ids)
        rows = self.store.execute(
            f"SELECT id, content FROM messages WHERE {' AND '.join(where)} ORDER BY id LIMIT ?",
            (*params, -1 if limit is None else limit))
        return [(int(r[0]), str(r[1])) for r in rows]

    def context_sources(self, ids: Sequence[int]) -> dict[int, int]:
        found: dict[int, int] = {}
        ordered = sorted(set(ids))
        for start in range(0, len(ordered), CHUNK):
            chunk = ordered[start : start + CHUNK]
            found.update((int(m), int(p)) for m, p in self.store.execute(
                f"SELECT m.id, {context_source('m')} FROM messages m"
                f" WHERE m.id IN ({','.join('?' * len(chunk))})", tuple(chunk))
                if p is not None)
        return found

    def matching_own_text(self, terms: Sequence[str], ids: Sequence[int]) -> set[int]:
        if not terms or not ids:
            return set()
        # The index's ``content`` column holds the message's own words, ``context`` its
        # neighbour's.
        query = "content : (" + fts_match(terms) + ")"
        self.store.index_appended()
        found: set[int] = set()
        ordered = sorted(set(ids))
        for start in range(0, len(ordered), CHUNK):
            chunk = ordered[start : start + CHUNK]
            found.update(int(r[0]) for r in self.store.execute(
                "SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?"
                f" AND rowid IN ({','.join('?' * len(chunk))})", (query, *chunk)))
        return found

    def set_embeddings(self, ids: Sequence[int], vectors: np.ndarray,
                       embedder_id: str) -> None:
        set_embeddings(self.store, "messages", ids, vectors, embedder_id)

    def clear_embeddings(self) -> None:
        self.store.execute("UPDATE messages SET embedding = NULL, embedder_id = NULL"
                           " WHERE embedding IS NOT NULL")
        bump_generation(self.store, "messages")

    def has_vectors(self) -> bool:
        return bool(self.store.execute(
            "SELECT EXISTS (SELECT 1 FROM messages WHERE embedding IS NOT NULL)").fetchone()[0])

    def count_texts(self, roles: Sequence[str], through_id: int | None = None) -> int:
        marks = ",".join("?" * len(roles))
        return int(self.store.execute(
            f"SELECT count(*) FROM messages WHERE role IN ({marks}) AND content != ''"
            " AND forgotten_at IS NULL AND id <= ?",
            (*roles, MAX_ID if through_id is None else through_id)).fetchone()[0])

    def count_without_vector(self, embedder_id: str, roles: Sequence[str]) -> int:
        marks = ",".join("?" * len(roles))
        return int(self.store.execute(
            f"SELECT count(*) FROM messages WHERE role IN ({marks}) AND content != ''"
            " AND forgotten_at IS NULL"
            " AND (embedding IS NULL OR embedder_id IS NOT ?)",
            (*roles, embedder_id)).fetchone()[0])


def erase_listed(store: SQLiteStore, listed: str, reason: str, erased_at: float) -> None:
    """Record the erasures of the ``listed`` messages (``listed_ids``) and delete them,
    taking them out of recall's index with their heirs' entries
    (memory/store/sqlite/forgetting.py), in a few statements however many they are; within
    a transaction, which the index's changes need whole."""
    store.execute(
        "INSERT INTO erasures (message_id, reason, erased_at)"
        " SELECT value, ?, ? FROM json_each(?) ORDER BY value", (reason, erased_at, listed))
    heirs = leave_index(store, listed)
    store.execute("DELETE FROM messages WHERE id IN (SELECT value FROM json_each(?))",
                  (listed,))
    store.execute(INDEX_LISTED, (heirs,))

"""Recall's messages of one agent in PostgreSQL (memory.store.contract.MessageStore)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from contextlib import nullcontext
from typing import Any

import numpy as np
import psycopg

from tiermem.memory.store.bounds import check_erasure, check_messages, check_name
from tiermem.memory.store.postgres.context_heirs import handing_on
from tiermem.memory.store.postgres.schema_search import IN_CONTEXT
from tiermem.memory.store.postgres.scope import (
    Scope,
    as_vector,
    insert_rows,
    rows_passing,
    store_embeddings,
    text_columns,
)
from tiermem.memory.store.records import Message, RowFilter
from tiermem.memory.store.references import check_dimensions
from tiermem.memory.validation import MAX_ID

MESSAGE_COLUMNS = ("id, turn, role, content, created_at, tool_calls, tool_call_id, tool_name, "
                   "status")


#: The messages of the turns of the listed ones (ids, agent, agent). Each listed id, then
#: each turn, is a lookup in an index (LATERAL, with LIMIT and OFFSET to keep the planner
#: from folding the lookups into a join of its choosing), so the cost grows with the ids
#: and the messages found whatever the planner's statistics. Planned as a join, on a
#: table not analysed since a large write, every message of the agent was checked against
#: the whole list of ids, one after another: 20,000 ids after 40,000 earlier messages took
#: 15 s, 1,000 messages written at once read 490,000 rows.
_IN_TURNS_OF = (
    "SELECT m.* FROM (SELECT DISTINCT t.turn FROM unnest(%s::bigint[]) AS x(id),"
    " LATERAL (SELECT n.turn FROM tiermem.messages n WHERE n.agent_id = %s AND n.id = x.id"
    f" LIMIT 1) t) turns, LATERAL (SELECT {MESSAGE_COLUMNS} FROM tiermem.messages m"
    " WHERE m.agent_id = %s AND m.turn = turns.turn{live} OFFSET 0) m ORDER BY m.id"
)

#: The messages of the listed turns (turns, agent), a lookup in the index each.
_IN_TURNS = (
    "SELECT m.* FROM unnest(%s::bigint[]) AS turns(turn), LATERAL (SELECT"
    f" {MESSAGE_COLUMNS} FROM tiermem.messages m WHERE m.agent_id = %s"
    " AND m.turn = turns.turn{live} OFFSET 0) m ORDER BY m.id"
)

#: The message the first of those appended takes its context from (``message_context``),
#: locked until the append commits. Another connection deleting or forgetting it has
#: locked it first: the append then waits for that to commit and takes the message before
#: it (a row gone by then is passed over), so a context never keeps a message that left
#: recall. Held, the lock makes such a delete wait for the append instead, whose message
#: the delete then finds as the heir to hand its context on to.
_LOCK_CONTEXT_SOURCE = (
    "SELECT p.id FROM tiermem.messages p WHERE p.agent_id = %s AND p.id < %s"
    f" AND {IN_CONTEXT.format(r='p')} ORDER BY p.id DESC LIMIT 1 FOR SHARE")


def _message(row: Sequence[Any]) -> Message:
    mid, turn, role, content, created_at, tool_calls, tool_call_id, tool_name, status = row
    return Message(turn=int(turn), role=role, content=content, created_at=created_at,
                   id=int(mid), tool_calls=None if tool_calls is None else json.loads(tool_calls),
                   tool_call_id=tool_call_id, tool_name=tool_name, status=status)


class PgMessages:
    """memory.store.contract.MessageStore over ``tiermem.messages``."""

    def __init__(self, scope: Scope) -> None:
        self.scope = scope

    def count(self) -> int:
        return int(self.scope.value("SELECT count(*) FROM tiermem.messages WHERE agent_id = %s "
                                    "AND forgotten_at IS NULL"))

    def max_id(self) -> int:
        return int(self.scope.value(
            "SELECT coalesce(max(id), 0) FROM tiermem.messages WHERE agent_id = %s"))

    def append_many(self, messages: Sequence[Message], *, bulk: bool = False) -> list[int]:
        check_messages(messages)
        check_dimensions(((m.embedding, m.embedder_id) for m in messages
                          if m.embedding is not None), self.scope.setting, "message embedding")
        if not messages:
            return []
        # The lock must last until the rows are in: the caller's transaction holds it,
        # or one of its own (a savepoint inside the caller's would cost two statements).
        idle = self.scope.conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
        with self.scope.conn.transaction() if idle else nullcontext():
            first = self.scope.next_id("messages")
            self.scope.run(_LOCK_CONTEXT_SOURCE, (first,))
            ids = list(range(first, first + len(messages)))
            rows = []
            for new_id, m in zip(ids, messages, strict=True):
                search_text, n_words = text_columns(m.content)
                rows.append((self.scope.agent, new_id, m.turn, m.role, m.content,
                             None if m.tool_calls is None else json.dumps(m.tool_calls),
                             m.tool_call_id, m.tool_name, m.created_at, m.status,
                             # The embedder id describes the vector: none without one.
                             m.embedder_id if m.embedding is not None else None,
                             as_vector(m.embedding), search_text, n_words))
            insert_rows(self.scope, "messages", (
                "agent_id", "id", "turn", "role", "content", "tool_calls", "tool_call_id",
                "tool_name", "created_at", "status", "embedder_id", "embedding", "search_text",
                "n_words"), rows)
        return ids

    def get_many(self, ids: Sequence[int]) -> dict[int, Message]:
        return self._rows(ids, " AND forgotten_at IS NULL")

    def _rows(self, ids: Sequence[int], condition: str = "") -> dict[int, Message]:
        if not ids:
            return {}
        return {int(r[0]): _message(r) for r in self.scope.rows(
            f"SELECT {MESSAGE_COLUMNS} FROM tiermem.messages WHERE agent_id = %s "
            f"AND id = ANY(%s::bigint[]){condition}", (list(ids),))}

    def set_status(self, message_id: int, status: str) -> None:
        check_name(status, "message status", "'ok'")
        self.scope.conn.execute(
            "UPDATE tiermem.messages SET status = %s WHERE agent_id = %s AND id = %s",
            (status, self.scope.agent, message_id))

    def resolve_pending(self, status: str) -> list[int]:
        check_name(status, "message status", "'ok'")
        rows = self.scope.conn.execute(
            "UPDATE tiermem.messages SET status = %s WHERE agent_id = %s "
            "AND status = 'pending' RETURNING id", (status, self.scope.agent)).fetchall()
        return sorted(int(r[0]) for r in rows)

    def erase(self, message_ids: Sequence[int], reason: str, erased_at: float) -> list[Message]:
        check_erasure(reason, erased_at)
        # A forgotten message can be erased too (forgetting keeps the row until then).
        found = self._rows(message_ids)
        erased = [found[i] for i in dict.fromkeys(message_ids) if i in found]
        if not erased:
            return []
        first = self.scope.next_id("erasures")
        gone = [m.id for m in erased]
        with self.scope.conn.transaction(), handing_on(self.scope, gone):
            # the heirs' contexts change with the deletes
            with self.scope.conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO tiermem.erasures (agent_id, id, message_id, reason,"
                    " erased_at) VALUES (%s, %s, %s, %s, %s)",
                    [(self.scope.agent, first + n, m.id, reason, erased_at)
                     for n, m in enumerate(erased)])
            self.scope.run("DELETE FROM tiermem.messages WHERE agent_id = %s"
                           " AND id = ANY(%s::bigint[])", (gone,))
        return erased

    def in_turns_of(self, message_ids: Sequence[int], *,
                    forgotten: bool = False) -> list[Message]:
        if not message_ids:
            return []
        live = " AND m.forgotten_at IS NULL" if not forgotten else ""
        return [_message(r) for r in self.scope.conn.execute(
            _IN_TURNS_OF.format(live=live),
            (sorted(set(message_ids)), self.scope.agent, self.scope.agent)).fetchall()]

    def in_turns(self, turns: Sequence[int], *, forgotten: bool = False) -> list[Message]:
        if not turns:
            return []
        live = " AND m.forgotten_at IS NULL" if not forgotten else ""
        return [_message(r) for r in self.scope.conn.execute(
            _IN_TURNS.format(live=live), (sorted(set(turns)), self.scope.agent)).fetchall()]

    def after(self, after_id: int, limit: int) -> list[Message]:
        return [_message(r) for r in self.scope.rows(
            f"SELECT {MESSAGE_COLUMNS} FROM tiermem.messages WHERE agent_id = %s AND id > %s"
            " ORDER BY id LIMIT %s", (after_id, limit))]

    def passing(self, ids: Sequence[int], filt: RowFilter) -> list[int]:
        return rows_passing(self.scope, "messages", ids, filt)

    def context_sources(self, ids: Sequence[int]) -> dict[int, int]:
        rows = self.scope.rows(
            "SELECT m.id, (SELECT p.id FROM tiermem.messages p WHERE p.agent_id = m.agent_id"
            f" AND p.id < m.id AND {IN_CONTEXT.format(r='p')} ORDER BY p.id DESC LIMIT 1)"
            " FROM tiermem.messages m WHERE m.agent_id = %s AND m.id = ANY(%s::bigint[])"
            f" AND {IN_CONTEXT.format(r='m')}", (sorted(set(ids)),))
        return {int(m): int(p) for m, p in rows if p is not None}

    def matching_own_text(self, terms: Sequence[str], ids: Sequence[int]) -> set[int]:
        if not terms or not ids:
            return set()
        # The row's own words, as its ``tsv`` holds them before its context is joined on
        # (schema_search.py), against the terms' stems.
        rows = self.scope.rows(
            "SELECT id FROM tiermem.messages WHERE agent_id = %s AND id = ANY(%s::bigint[])"
            " AND forgotten_at IS NULL AND tsvector_to_array(to_tsvector('tiermem.english_all',"
            " regexp_replace(coalesce(search_text, content), '[^[:alnum:]]+', ' ', 'g')))"
            " && tsvector_to_array(to_tsvector('tiermem.english_all',"
            " regexp_replace(%s, '[^[:alnum:]]+', ' ', 'g')))",
            (sorted(set(ids)), " ".join(terms)))
        return {int(r[0]) for r in rows}

    def texts(self, roles: Sequence[str], *, after_id: int = 0, limit: int | None = None,
              ids: Sequence[int] | None = None,
              without_vector: bool = False) -> list[tuple[int, str]]:
        conditions = ["agent_id = %s", "id > %s", "role = ANY(%s)", "content <> ''",
                      "forgotten_at IS NULL"]
        params: list[Any] = [after_id, list(roles)]
        if ids is not None:
            conditions.append("id = ANY(%s::bigint[])")
            params.append(list(ids))
        if without_vector:
            conditions.append("embedding IS NULL")
        rows = self.scope.rows(
            f"SELECT id, content FROM tiermem.messages WHERE {' AND '.join(conditions)} "
            f"ORDER BY id LIMIT %s", (*params, limit))
        return [(int(i), t) for i, t in rows]

    def set_embeddings(self, ids: Sequence[int], vectors: np.ndarray,
                       embedder_id: str) -> None:
        store_embeddings(self.scope, "messages", ids, vectors, embedder_id)

    def clear_embeddings(self) -> None:
        self.scope.run("UPDATE tiermem.messages SET embedding = NULL, embedder_id = NULL "
                       "WHERE agent_id = %s AND embedding IS NOT NULL")

    def has_vectors(self) -> bool:
        return self.scope.one("SELECT 1 FROM tiermem.messages WHERE agent_id = %s "
                              "AND embedding IS NOT NULL LIMIT 1") is not None

    def count_texts(self, roles: Sequence[str], through_id: int | None = None) -> int:
        return int(self.scope.value(
            "SELECT count(*) FROM tiermem.messages WHERE agent_id = %s AND role = ANY(%s) "
            "AND content <> '' AND forgotten_at IS NULL AND id <= %s",
            (list(roles), MAX_ID if through_id is None else through_id)))

    def count_without_vector(self, embedder_id: str, roles: Sequence[str]) -> int:
        return int(self.scope.value(
            "SELECT count(*) FROM tiermem.messages WHERE agent_id = %s AND role = ANY(%s) "
            "AND content <> '' AND forgotten_at IS NULL "
            "AND (embedding IS NULL OR embedder_id IS DISTINCT FROM %s)",
            (list(roles), embedder_id)))

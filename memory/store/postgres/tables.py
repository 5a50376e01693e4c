"""Facts, passages, messages, history and settings of one agent in PostgreSQL.

Every statement names the agent (``agent_id = %s`` first), so no query of one
agent can see another's rows. New ids are the agent's largest id plus one, as
SQLite numbers rows; only the agent's single writer inserts, so two inserts
never race for an id.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import psycopg

from tiermem.memory.store.records import (
    Event,
    Fact,
    FactTotals,
    HistoryPoint,
    Message,
    Passage,
    RowFilter,
)
from tiermem.memory.text.symbols import indexed_text

_WORD = re.compile(r"[^\W_]+")
FACT_COLUMNS = ("id", "text", "durability", "created_at", "created_tick", "last_access",
                "access_count", "source", "tokens", "tier", "evicted_at", "passage_id",
                "evictions", "promotions", "cycles", "hits_since_eviction", "evicted_tick",
                "entered_core_seq", "last_counted_tick", "source_message_id")
_FACT_SELECT = ", ".join(FACT_COLUMNS)
_FACT_MUTABLE = [c for c in FACT_COLUMNS if c not in ("id", "created_at", "created_tick",
                                                      "source", "source_message_id")]
PASSAGE_COLUMNS = ("id, text, created_at, tags, metadata, source, was_in_core, evicted_at, "
                   "fact_id, source_message_id")
MESSAGE_COLUMNS = ("id, turn, role, content, created_at, tool_calls, tool_call_id, tool_name, "
                   "status")


def text_columns(text: str) -> tuple[str | None, int]:
    """``search_text`` (None when the indexed text is the text) and ``n_words`` of a row."""
    indexed = indexed_text(text) or ""
    return (None if indexed == text else indexed), len(_WORD.findall(indexed))


class Scope:
    """One agent's connection: every table object runs its statements through it."""

    def __init__(self, conn: psycopg.Connection, agent: int) -> None:
        self.conn, self.agent = conn, agent

    def rows(self, query: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self.conn.execute(query, (self.agent, *params)).fetchall()

    def one(self, query: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        return self.conn.execute(query, (self.agent, *params)).fetchone()

    def value(self, query: str, params: Sequence[Any] = ()) -> Any:
        row = self.one(query, params)
        return None if row is None else row[0]

    def run(self, query: str, params: Sequence[Any] = ()) -> None:
        self.conn.execute(query, (self.agent, *params))

    def next_id(self, table: str) -> int:
        return int(self.value(f"SELECT coalesce(max(id), 0) + 1 FROM tiermem.{table} "
                              f"WHERE agent_id = %s"))


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


def _passing(scope: Scope, table: str, ids: Sequence[int], filt: RowFilter) -> list[int]:
    if not ids:
        return []
    where, params = filter_sql(filt, table)
    found = {int(r[0]) for r in scope.rows(
        f"SELECT b.id FROM tiermem.{table} b WHERE b.agent_id = %s AND b.id = ANY(%s)"
        + (f" AND {where}" if where else ""), [list(ids), *params])}
    return [i for i in ids if i in found]


def _fact(row: Sequence[Any]) -> Fact:
    values = dict(zip(FACT_COLUMNS, row, strict=True))
    for name in ("id", "access_count", "tokens", "passage_id", "evictions", "promotions",
                 "cycles", "hits_since_eviction", "entered_core_seq", "source_message_id"):
        if values[name] is not None:
            values[name] = int(values[name])
    return Fact(**values)


class PgFacts:
    def __init__(self, scope: Scope) -> None:
        self.scope = scope

    def in_core(self) -> list[Fact]:
        return [_fact(r) for r in self.scope.rows(
            f"SELECT {_FACT_SELECT} FROM tiermem.facts WHERE agent_id = %s AND tier = 'core' "
            f"ORDER BY id")]

    def all(self) -> list[Fact]:
        return [_fact(r) for r in self.scope.rows(
            f"SELECT {_FACT_SELECT} FROM tiermem.facts WHERE agent_id = %s "
            f"AND forgotten_at IS NULL ORDER BY id")]

    def get(self, fact_id: int) -> Fact | None:
        row = self.scope.one(f"SELECT {_FACT_SELECT} FROM tiermem.facts "
                             f"WHERE agent_id = %s AND id = %s AND forgotten_at IS NULL",
                             (fact_id,))
        return None if row is None else _fact(row)

    def source_messages(self, fact_ids: Sequence[int]) -> dict[int, int]:
        if not fact_ids:
            return {}
        return {int(r[0]): int(r[1]) for r in self.scope.rows(
            "SELECT id, source_message_id FROM tiermem.facts WHERE agent_id = %s "
            "AND id = ANY(%s) AND forgotten_at IS NULL AND source_message_id IS NOT NULL",
            (list(fact_ids),))}

    def by_norm(self, norm: str) -> Fact | None:
        row = self.scope.one(f"SELECT {_FACT_SELECT} FROM tiermem.facts "
                             f"WHERE agent_id = %s AND norm = %s", (norm,))
        return None if row is None else _fact(row)

    def insert(self, fact: Fact, norm: str) -> int:
        new_id = self.scope.next_id("facts")
        search_text, n_words = text_columns(fact.text)
        values = [new_id if c == "id" else getattr(fact, c) for c in FACT_COLUMNS]
        columns = ", ".join(FACT_COLUMNS)
        self.scope.run(
            f"INSERT INTO tiermem.facts (agent_id, {columns}, norm, search_text, n_words) "
            f"VALUES (%s{', %s' * (len(FACT_COLUMNS) + 3)})",
            [*values, norm, search_text, n_words])
        return new_id

    def update(self, fact: Fact, norm: str | None = None) -> None:
        search_text, n_words = text_columns(fact.text)
        sets = [f"{c} = %s" for c in _FACT_MUTABLE] + ["search_text = %s", "n_words = %s"]
        values: list[Any] = [getattr(fact, c) for c in _FACT_MUTABLE] + [search_text, n_words]
        if norm is not None:
            sets.append("norm = %s")
            values.append(norm)
        self.scope.conn.execute(
            # A forgotten fact is never written again (a stale copy of it changes nothing).
            f"UPDATE tiermem.facts SET {', '.join(sets)} WHERE agent_id = %s AND id = %s "
            f"AND forgotten_at IS NULL",
            (*values, self.scope.agent, fact.id))

    def totals(self) -> FactTotals:
        row = self.scope.one(
            "SELECT coalesce(sum(evictions), 0), coalesce(sum(promotions), 0), "
            "coalesce(sum(cycles), 0), coalesce(max(cycles), 0) FROM tiermem.facts "
            "WHERE agent_id = %s")
        assert row is not None
        return FactTotals(*(int(v) for v in row))

    def cycling(self, min_cycles: int, limit: int) -> list[Fact]:
        return [_fact(r) for r in self.scope.rows(
            f"SELECT {_FACT_SELECT} FROM tiermem.facts WHERE agent_id = %s AND cycles >= %s "
            f"AND forgotten_at IS NULL ORDER BY cycles DESC, id LIMIT %s",
            (min_cycles, limit))]

    def learned_from(self, message_ids: Sequence[int]) -> list[int]:
        return [int(r[0]) for r in self.scope.rows(
            "SELECT id FROM tiermem.facts WHERE agent_id = %s AND source_message_id = ANY(%s) "
            "ORDER BY id", (list(message_ids),))]

    def delete(self, fact_ids: Sequence[int]) -> list[Fact]:
        return sorted((_fact(r) for r in self.scope.rows(
            f"DELETE FROM tiermem.facts WHERE agent_id = %s AND id = ANY(%s) "
            f"RETURNING {_FACT_SELECT}", (list(fact_ids),))), key=lambda f: f.id)


def _passage(row: Sequence[Any]) -> Passage:
    (pid, text, created_at, tags, metadata, source, was_in_core, evicted_at, fact_id,
     message) = row
    return Passage(text=text, created_at=created_at, id=int(pid), tags=json.loads(tags),
                   metadata=json.loads(metadata), source=source, was_in_core=bool(was_in_core),
                   evicted_at=evicted_at, fact_id=None if fact_id is None else int(fact_id),
                   source_message_id=None if message is None else int(message))


def _vector(embedding: np.ndarray | None) -> np.ndarray | None:
    return None if embedding is None else np.asarray(embedding, dtype=np.float32)


class PgPassages:
    def __init__(self, scope: Scope) -> None:
        self.scope = scope

    def count(self) -> int:
        return int(self.scope.value(
            "SELECT count(*) FROM tiermem.passages WHERE agent_id = %s AND forgotten_at IS NULL"))

    def insert_many(self, passages: Sequence[Passage]) -> list[int]:
        if not passages:
            return []
        first = self.scope.next_id("passages")
        ids = list(range(first, first + len(passages)))
        rows = []
        for new_id, p in zip(ids, passages, strict=True):
            search_text, n_words = text_columns(p.text)
            rows.append((self.scope.agent, new_id, p.text, p.created_at, json.dumps(p.tags),
                         json.dumps(p.metadata), p.source, p.was_in_core, p.evicted_at,
                         p.fact_id, p.embedder_id, _vector(p.embedding), search_text,
                         n_words, p.source_message_id))
        insert_rows(self.scope, "passages", (
            "agent_id", "id", "text", "created_at", "tags", "metadata", "source", "was_in_core",
            "evicted_at", "fact_id", "embedder_id", "embedding", "search_text", "n_words",
            "source_message_id"), rows)
        return ids

    def get_many(self, ids: Sequence[int]) -> dict[int, Passage]:
        if not ids:
            return {}
        return {int(r[0]): _passage(r) for r in self.scope.rows(
            f"SELECT {PASSAGE_COLUMNS} FROM tiermem.passages WHERE agent_id = %s "
            f"AND id = ANY(%s) AND forgotten_at IS NULL", (list(ids),))}

    def mark_evicted(self, passage_id: int, evicted_at: float) -> None:
        self.scope.conn.execute(
            "UPDATE tiermem.passages SET was_in_core = true, evicted_at = %s "
            "WHERE agent_id = %s AND id = %s", (evicted_at, self.scope.agent, passage_id))

    def replace_text(self, passage_id: int, text: str, embedding: np.ndarray,
                     embedder_id: str) -> None:
        search_text, n_words = text_columns(text)
        self.scope.conn.execute(
            "UPDATE tiermem.passages SET text = %s, search_text = %s, n_words = %s, "
            "embedding = %s, embedder_id = %s WHERE agent_id = %s AND id = %s",
            (text, search_text, n_words, _vector(embedding), embedder_id, self.scope.agent,
             passage_id))

    def set_metadata(self, passage_id: int, metadata: dict[str, object]) -> None:
        self.scope.conn.execute(
            "UPDATE tiermem.passages SET metadata = %s WHERE agent_id = %s AND id = %s",
            (json.dumps(metadata), self.scope.agent, passage_id))

    def passing(self, ids: Sequence[int], filt: RowFilter) -> list[int]:
        return _passing(self.scope, "passages", ids, filt)

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
        _set_embeddings(self.scope, "passages", ids, vectors, embedder_id)

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
            "SELECT id FROM tiermem.passages WHERE agent_id = %s AND fact_id = ANY(%s) "
            "ORDER BY id", (list(fact_ids),))]

    def filed_from(self, message_ids: Sequence[int]) -> list[int]:
        return [int(r[0]) for r in self.scope.rows(
            "SELECT id FROM tiermem.passages WHERE agent_id = %s "
            "AND source_message_id = ANY(%s) ORDER BY id", (list(message_ids),))]

    def delete(self, ids: Sequence[int]) -> list[Passage]:
        return sorted((_passage(r) for r in self.scope.rows(
            f"DELETE FROM tiermem.passages WHERE agent_id = %s AND id = ANY(%s) "
            f"RETURNING {PASSAGE_COLUMNS}", (list(ids),))), key=lambda p: p.id)


def _set_embeddings(scope: Scope, table: str, ids: Sequence[int], vectors: np.ndarray,
                    embedder_id: str) -> None:
    # One statement, so the update triggers run once.
    scope.conn.execute(
        f"UPDATE tiermem.{table} t SET embedding = v.e, embedder_id = %s "
        f"FROM unnest(%s::bigint[], %s::vector[]) AS v(id, e) "
        f"WHERE t.agent_id = %s AND t.id = v.id",
        (embedder_id, [int(i) for i in ids], [np.asarray(v, dtype=np.float32) for v in vectors],
         scope.agent))


def _message(row: Sequence[Any]) -> Message:
    mid, turn, role, content, created_at, tool_calls, tool_call_id, tool_name, status = row
    return Message(turn=int(turn), role=role, content=content, created_at=created_at,
                   id=int(mid), tool_calls=None if tool_calls is None else json.loads(tool_calls),
                   tool_call_id=tool_call_id, tool_name=tool_name, status=status)


class PgMessages:
    def __init__(self, scope: Scope) -> None:
        self.scope = scope

    def count(self) -> int:
        return int(self.scope.value("SELECT count(*) FROM tiermem.messages WHERE agent_id = %s "
                                    "AND forgotten_at IS NULL"))

    def max_id(self) -> int:
        return int(self.scope.value(
            "SELECT coalesce(max(id), 0) FROM tiermem.messages WHERE agent_id = %s"))

    def append_many(self, messages: Sequence[Message], *, bulk: bool = False) -> list[int]:
        if not messages:
            return []
        first = self.scope.next_id("messages")
        ids = list(range(first, first + len(messages)))
        rows = []
        for new_id, m in zip(ids, messages, strict=True):
            search_text, n_words = text_columns(m.content)
            rows.append((self.scope.agent, new_id, m.turn, m.role, m.content,
                         None if m.tool_calls is None else json.dumps(m.tool_calls),
                         m.tool_call_id, m.tool_name, m.created_at, m.status,
                         # The embedder id describes the vector: none without one.
                         m.embedder_id if m.embedding is not None else None,
                         _vector(m.embedding), search_text, n_words))
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
            f"AND id = ANY(%s){condition}", (list(ids),))}

    def set_status(self, message_id: int, status: str) -> None:
        self.scope.conn.execute(
            "UPDATE tiermem.messages SET status = %s WHERE agent_id = %s AND id = %s",
            (status, self.scope.agent, message_id))

    def resolve_pending(self, status: str) -> list[int]:
        rows = self.scope.conn.execute(
            "UPDATE tiermem.messages SET status = %s WHERE agent_id = %s "
            "AND status = 'pending' RETURNING id", (status, self.scope.agent)).fetchall()
        return sorted(int(r[0]) for r in rows)

    def erase(self, message_ids: Sequence[int], reason: str, erased_at: float) -> list[Message]:
        # A forgotten message can be erased too (forgetting keeps the row until then).
        found = self._rows(message_ids)
        erased = [found[i] for i in dict.fromkeys(message_ids) if i in found]
        if not erased:
            return []
        first = self.scope.next_id("erasures")
        with self.scope.conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO tiermem.erasures (agent_id, id, message_id, reason, erased_at) "
                "VALUES (%s, %s, %s, %s, %s)",
                [(self.scope.agent, first + n, m.id, reason, erased_at)
                 for n, m in enumerate(erased)])
        self.scope.run("DELETE FROM tiermem.messages WHERE agent_id = %s AND id = ANY(%s)",
                       ([m.id for m in erased],))
        return erased

    def in_turns_of(self, message_ids: Sequence[int], *,
                    forgotten: bool = False) -> list[Message]:
        if not message_ids:
            return []
        live = "" if forgotten else " AND forgotten_at IS NULL"
        return [_message(r) for r in self.scope.rows(
            f"SELECT {MESSAGE_COLUMNS} FROM tiermem.messages WHERE agent_id = %s "
            f"AND turn IN (SELECT turn FROM tiermem.messages WHERE agent_id = %s "
            f"AND id = ANY(%s)){live} ORDER BY id", (self.scope.agent, list(message_ids)))]

    def passing(self, ids: Sequence[int], filt: RowFilter) -> list[int]:
        return _passing(self.scope, "messages", ids, filt)

    def texts(self, roles: Sequence[str], *, after_id: int = 0, limit: int | None = None,
              ids: Sequence[int] | None = None,
              without_vector: bool = False) -> list[tuple[int, str]]:
        conditions = ["agent_id = %s", "id > %s", "role = ANY(%s)", "content <> ''",
                      "forgotten_at IS NULL"]
        params: list[Any] = [after_id, list(roles)]
        if ids is not None:
            conditions.append("id = ANY(%s)")
            params.append(list(ids))
        if without_vector:
            conditions.append("embedding IS NULL")
        rows = self.scope.rows(
            f"SELECT id, content FROM tiermem.messages WHERE {' AND '.join(conditions)} "
            f"ORDER BY id LIMIT %s", (*params, limit))
        return [(int(i), t) for i, t in rows]

    def set_embeddings(self, ids: Sequence[int], vectors: np.ndarray,
                       embedder_id: str) -> None:
        _set_embeddings(self.scope, "messages", ids, vectors, embedder_id)

    def clear_embeddings(self) -> None:
        self.scope.run("UPDATE tiermem.messages SET embedding = NULL, embedder_id = NULL "
                       "WHERE agent_id = %s AND embedding IS NOT NULL")

    def has_vectors(self) -> bool:
        return self.scope.one("SELECT 1 FROM tiermem.messages WHERE agent_id = %s "
                              "AND embedding IS NOT NULL LIMIT 1") is not None

    def count_without_vector(self, embedder_id: str, roles: Sequence[str]) -> int:
        return int(self.scope.value(
            "SELECT count(*) FROM tiermem.messages WHERE agent_id = %s AND role = ANY(%s) "
            "AND content <> '' AND forgotten_at IS NULL "
            "AND (embedding IS NULL OR embedder_id IS DISTINCT FROM %s)",
            (list(roles), embedder_id)))


_HISTORY = ("tick", "created_at", "core_facts", "core_size", "durable_in_core",
            "archival_passages", "recall_messages", "evictions", "promotions")
_EVENT = "id, tick, kind, fact_id, detail, created_at"


def _point(row: Sequence[Any]) -> HistoryPoint:
    values = dict(zip(_HISTORY, row, strict=True))
    return HistoryPoint(**{k: v if k == "created_at" else int(v) for k, v in values.items()})


def _event(row: Sequence[Any]) -> Event:
    eid, tick, kind, fact_id, detail, created_at = row
    return Event(tick=int(tick), kind=kind, fact_id=None if fact_id is None else int(fact_id),
                 detail=detail, created_at=created_at, id=int(eid))


class PgHistory:
    def __init__(self, scope: Scope) -> None:
        self.scope = scope

    def record(self, point: HistoryPoint) -> None:
        columns = ", ".join(_HISTORY)
        updates = ", ".join(f"{c} = excluded.{c}" for c in _HISTORY[1:])
        self.scope.run(
            f"INSERT INTO tiermem.history (agent_id, {columns}) VALUES (%s{', %s' * 9}) "
            f"ON CONFLICT (agent_id, tick) DO UPDATE SET {updates}",
            [getattr(point, c) for c in _HISTORY])

    def points(self, newest: int | None = None) -> list[HistoryPoint]:
        columns = ", ".join(_HISTORY)
        if newest is None:
            return [_point(r) for r in self.scope.rows(
                f"SELECT {columns} FROM tiermem.history WHERE agent_id = %s ORDER BY tick")]
        return [_point(r) for r in self.scope.rows(
            f"SELECT {columns} FROM tiermem.history WHERE agent_id = %s "
            f"ORDER BY tick DESC LIMIT %s", (newest,))]

    def add_event(self, event: Event) -> int:
        new_id = self.scope.next_id("events")
        self.scope.run(
            "INSERT INTO tiermem.events (agent_id, id, tick, kind, fact_id, detail, "
            "created_at) VALUES (%s, %s, %s, %s, %s, %s, %s)",
            (new_id, event.tick, event.kind, event.fact_id, event.detail, event.created_at))
        return new_id

    def last_event_id(self) -> int:
        return int(self.scope.value(
            "SELECT coalesce(max(id), 0) FROM tiermem.events WHERE agent_id = %s"))

    def events_since(self, event_id: int) -> list[Event]:
        return [_event(r) for r in self.scope.rows(
            f"SELECT {_EVENT} FROM tiermem.events WHERE agent_id = %s AND id > %s ORDER BY id",
            (event_id,))]

    def durable_evictions(self) -> int:
        return int(self.scope.value(
            "SELECT count(*) FROM tiermem.events e JOIN tiermem.facts f "
            "ON f.agent_id = e.agent_id AND f.id = e.fact_id "
            "WHERE e.agent_id = %s AND e.kind = 'evict' AND f.durability = 'durable'"))


class PgSettings:
    def __init__(self, scope: Scope) -> None:
        self.scope = scope

    def get(self, key: str, default: str | None = None) -> str | None:
        value = self.scope.value(
            "SELECT value FROM tiermem.settings WHERE agent_id = %s AND key = %s", (key,))
        return default if value is None else str(value)

    def set(self, key: str, value: object) -> None:
        self.scope.run("INSERT INTO tiermem.settings (agent_id, key, value) VALUES (%s, %s, %s) "
                       "ON CONFLICT (agent_id, key) DO UPDATE SET value = excluded.value",
                       (key, str(value)))

    def delete(self, keys: Iterable[str]) -> None:
        self.scope.run("DELETE FROM tiermem.settings WHERE agent_id = %s AND key = ANY(%s)",
                       (list(keys),))

    def items(self, prefix: str = "") -> list[tuple[str, str]]:
        rows = self.scope.rows(
            "SELECT key, value FROM tiermem.settings WHERE agent_id = %s "
            "AND starts_with(key, %s) ORDER BY key COLLATE \"C\"", (prefix,))
        return [(str(k), str(v)) for k, v in rows]

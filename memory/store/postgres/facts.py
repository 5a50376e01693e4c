"""Facts of one agent in PostgreSQL (memory.store.contract.FactStore)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tiermem.memory.store.bounds import check_fact
from tiermem.memory.store.nesting import NestedTransactions
from tiermem.memory.store.postgres.history import stored_counters
from tiermem.memory.store.postgres.scope import Scope, text_columns
from tiermem.memory.store.records import Fact, FactTotals
from tiermem.memory.store.references import (
    check_archived_at_commit,
    check_fact_counters,
    check_fact_passage,
    refuse_archived_alone,
)
from tiermem.memory.validation import seconds_of_stored

FACT_COLUMNS = ("id", "text", "durability", "created_at", "created_tick", "last_access",
                "access_count", "source", "tokens", "tier", "evicted_at", "passage_id",
                "evictions", "promotions", "cycles", "hits_since_eviction", "evicted_tick",
                "entered_core_seq", "last_counted_tick", "source_message_id")
_FACT_SELECT = ", ".join(FACT_COLUMNS)
_FACT_MUTABLE = [c for c in FACT_COLUMNS if c not in ("id", "created_at", "created_tick",
                                                      "source", "source_message_id")]


def _fact(row: Sequence[Any]) -> Fact:
    values = dict(zip(FACT_COLUMNS, row, strict=True))
    for name in ("id", "access_count", "tokens", "passage_id", "evictions", "promotions",
                 "cycles", "hits_since_eviction", "entered_core_seq", "source_message_id"):
        if values[name] is not None:
            values[name] = int(values[name])
    # Seconds even where an earlier version wrote milliseconds: an update, or a passage
    # made from the fact, takes only seconds.
    for name in ("created_at", "evicted_at"):
        if values[name] is not None:
            values[name] = seconds_of_stored(values[name])
    return Fact(**values)


class PgFacts:
    """memory.store.contract.FactStore over ``tiermem.facts``."""

    def __init__(self, scope: Scope, transactions: NestedTransactions) -> None:
        self.scope, self.transactions = scope, transactions

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
            "AND id = ANY(%s::bigint[]) AND forgotten_at IS NULL AND source_message_id IS NOT NULL",
            (list(fact_ids),))}

    def _text(self, fact_id: int) -> str | None:
        row = self.scope.one("SELECT text FROM tiermem.facts WHERE agent_id = %s AND id = %s",
                             (fact_id,))
        return None if row is None else str(row[0])

    def _passage_forgotten(self, passage_id: int) -> bool | None:
        row = self.scope.one("SELECT forgotten_at IS NOT NULL FROM tiermem.passages "
                             "WHERE agent_id = %s AND id = %s", (passage_id,))
        return None if row is None else bool(row[0])

    def _without_passage(self, fact_id: int) -> bool:
        return self.scope.one(
            "SELECT 1 FROM tiermem.facts WHERE agent_id = %s AND id = %s AND tier = 'archival'"
            " AND passage_id IS NULL AND forgotten_at IS NULL", (fact_id,)) is not None

    def by_norm(self, norm: str) -> Fact | None:
        row = self.scope.one(f"SELECT {_FACT_SELECT} FROM tiermem.facts "
                             f"WHERE agent_id = %s AND norm = %s", (norm,))
        return None if row is None else _fact(row)

    def insert(self, fact: Fact, norm: str) -> int:
        check_fact(fact)
        check_fact_counters(fact, lambda: stored_counters(self.scope))
        check_fact_passage(fact, self._passage_forgotten)
        refuse_archived_alone(fact, self.transactions)
        new_id = self.scope.next_id("facts")
        search_text, n_words = text_columns(fact.text)
        values = [new_id if c == "id" else getattr(fact, c) for c in FACT_COLUMNS]
        columns = ", ".join(FACT_COLUMNS)
        self.scope.run(
            f"INSERT INTO tiermem.facts (agent_id, {columns}, norm, search_text, n_words) "
            f"VALUES (%s{', %s' * (len(FACT_COLUMNS) + 3)})",
            [*values, norm, search_text, n_words])
        check_archived_at_commit(fact, new_id, self.transactions, self._without_passage)
        return new_id

    def update(self, fact: Fact, norm: str | None = None) -> None:
        check_fact(fact, stored_text=lambda: self._text(fact.id))
        check_fact_counters(fact, lambda: stored_counters(self.scope), lambda: self.get(fact.id))
        check_fact_passage(fact, self._passage_forgotten, lambda: self.get(fact.id) is not None)
        refuse_archived_alone(fact, self.transactions)
        check_archived_at_commit(fact, fact.id, self.transactions, self._without_passage)
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
            "coalesce(sum(cycles), 0), "
            # The worst cycler is one the report can list: forgotten facts are not.
            "coalesce(max(CASE WHEN forgotten_at IS NULL THEN cycles END), 0) FROM tiermem.facts "
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
            "SELECT id FROM tiermem.facts WHERE agent_id = %s"
            " AND source_message_id = ANY(%s::bigint[]) ORDER BY id", (list(message_ids),))]

    def forgotten_from(self, message_ids: Sequence[int]) -> list[Fact]:
        return [_fact(r) for r in self.scope.rows(
            f"SELECT {_FACT_SELECT} FROM tiermem.facts WHERE agent_id = %s "
            f"AND source_message_id = ANY(%s::bigint[]) AND forgotten_at IS NOT NULL ORDER BY id",
            (list(message_ids),))]

    def delete(self, fact_ids: Sequence[int]) -> list[Fact]:
        gone = sorted((_fact(r) for r in self.scope.rows(
            f"DELETE FROM tiermem.facts WHERE agent_id = %s AND id = ANY(%s::bigint[]) "
            f"RETURNING {_FACT_SELECT}", (list(fact_ids),))), key=lambda f: f.id)
        self.scope.note_erased("facts", [f.id for f in gone])
        return gone

"""Facts and core membership in SQLite (the ``facts`` table)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tiermem.memory.store.bounds import check_fact
from tiermem.memory.store.records import Fact, FactTotals
from tiermem.memory.store.references import (
    check_archived_at_commit,
    check_fact_counters,
    check_fact_passage,
    refuse_archived_alone,
)
from tiermem.memory.store.sqlite.erasure import delete_rows, ids_where
from tiermem.memory.store.sqlite.filters import CHUNK
from tiermem.memory.store.sqlite.history import stored_counters
from tiermem.memory.store.sqlite.ids import next_id_sql
from tiermem.memory.validation import seconds_of_stored

if TYPE_CHECKING:
    from tiermem.memory.store.sqlite.store import SQLiteStore

_COLUMNS = (
    "id, text, durability, tier, created_at, created_tick, entered_core_seq, last_access,"
    " access_count, last_counted_tick, source, tokens, passage_id, evicted_at, evicted_tick,"
    " evictions, promotions, cycles, hits_since_eviction, source_message_id"
)

#: Past every id given before, an erased fact's too (memory/store/sqlite/ids.py).
_NEXT_ID = next_id_sql("facts")


def _seconds_or_none(stamp: float | None) -> float | None:
    return None if stamp is None else seconds_of_stored(stamp)


def fact_from_row(row: sqlite3.Row) -> Fact:
    """A fact as stored, its times in seconds even where an earlier version wrote them in
    milliseconds: an update, or a passage made from the fact, takes only seconds."""
    return Fact(
        id=row["id"],
        text=row["text"],
        durability=row["durability"],
        created_at=seconds_of_stored(row["created_at"]),
        created_tick=row["created_tick"],
        last_access=row["last_access"],
        access_count=row["access_count"],
        source=row["source"],
        tokens=row["tokens"],
        tier=row["tier"],
        evicted_at=_seconds_or_none(row["evicted_at"]),
        passage_id=row["passage_id"],
        evictions=row["evictions"],
        promotions=row["promotions"],
        cycles=row["cycles"],
        hits_since_eviction=row["hits_since_eviction"],
        evicted_tick=row["evicted_tick"],
        entered_core_seq=row["entered_core_seq"],
        last_counted_tick=row["last_counted_tick"],
        source_message_id=row["source_message_id"],
    )


class SQLiteFacts:
    """memory.store.contract.FactStore over the ``facts`` table."""

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store

    def in_core(self) -> list[Fact]:
        rows = self.store.execute(f"SELECT {_COLUMNS} FROM facts WHERE tier = 'core'")
        return sorted(map(fact_from_row, rows), key=lambda f: f.id)

    def all(self) -> list[Fact]:
        return list(map(fact_from_row, self.store.execute(
            f"SELECT {_COLUMNS} FROM facts WHERE forgotten_at IS NULL ORDER BY id")))

    def get(self, fact_id: int) -> Fact | None:
        return self._row(fact_id, " AND forgotten_at IS NULL")

    def source_messages(self, fact_ids: Sequence[int]) -> dict[int, int]:
        found: dict[int, int] = {}
        for start in range(0, len(fact_ids), CHUNK):
            chunk = tuple(fact_ids[start : start + CHUNK])
            found.update(self.store.execute(
                f"SELECT id, source_message_id FROM facts WHERE id IN "
                f"({','.join('?' * len(chunk))}) AND forgotten_at IS NULL"
                " AND source_message_id IS NOT NULL", chunk).fetchall())
        return found

    def _row(self, fact_id: int, condition: str = "") -> Fact | None:
        row = self.store.execute(f"SELECT {_COLUMNS} FROM facts WHERE id = ?{condition}",
                                 (fact_id,)).fetchone()
        return fact_from_row(row) if row else None

    def _text(self, fact_id: int) -> str | None:
        row = self.store.execute("SELECT text FROM facts WHERE id = ?", (fact_id,)).fetchone()
        return None if row is None else str(row[0])

    def _passage_forgotten(self, passage_id: int) -> bool | None:
        row = self.store.execute("SELECT forgotten_at IS NOT NULL FROM passages WHERE id = ?",
                                 (passage_id,)).fetchone()
        return None if row is None else bool(row[0])

    def _without_passage(self, fact_id: int) -> bool:
        return self.store.execute(
            "SELECT 1 FROM facts WHERE id = ? AND tier = 'archival' AND passage_id IS NULL"
            " AND forgotten_at IS NULL", (fact_id,)).fetchone() is not None

    def by_norm(self, norm: str) -> Fact | None:
        row = self.store.execute(f"SELECT {_COLUMNS} FROM facts WHERE norm = ?",
                                 (norm,)).fetchone()
        return fact_from_row(row) if row else None

    def insert(self, fact: Fact, norm: str) -> int:
        check_fact(fact)
        check_fact_counters(fact, lambda: stored_counters(self.store))
        check_fact_passage(fact, self._passage_forgotten)
        refuse_archived_alone(fact, self.store)
        cursor = self.store.execute(
            "INSERT INTO facts (id, text, norm, durability, tier, created_at, created_tick,"
            " entered_core_seq, last_access, access_count, last_counted_tick, source, tokens,"
            f" passage_id, source_message_id) VALUES ({_NEXT_ID},?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (fact.text, norm, fact.durability, fact.tier, fact.created_at, fact.created_tick,
             fact.entered_core_seq, fact.last_access, fact.access_count, fact.last_counted_tick,
             fact.source, fact.tokens, fact.passage_id, fact.source_message_id),
        )
        self.store.rows_appended("facts")
        new_id = int(cursor.lastrowid or 0)
        check_archived_at_commit(fact, new_id, self.store, self._without_passage)
        return new_id

    def update(self, fact: Fact, norm: str | None = None) -> None:
        check_fact(fact, stored_text=lambda: self._text(fact.id))
        check_fact_counters(fact, lambda: stored_counters(self.store), lambda: self.get(fact.id))
        check_fact_passage(fact, self._passage_forgotten, lambda: self.get(fact.id) is not None)
        refuse_archived_alone(fact, self.store)
        check_archived_at_commit(fact, fact.id, self.store, self._without_passage)
        self.store.execute(
            "UPDATE facts SET text=?, durability=?, tier=?, entered_core_seq=?, last_access=?,"
            " access_count=?, last_counted_tick=?, tokens=?, passage_id=?, evicted_at=?,"
            " evicted_tick=?, evictions=?, promotions=?, cycles=?, hits_since_eviction=?"
            + (", norm=?" if norm is not None else "")
            # A forgotten fact is never written again (a stale copy of it changes nothing).
            + " WHERE id=? AND forgotten_at IS NULL",
            (fact.text, fact.durability, fact.tier, fact.entered_core_seq, fact.last_access,
             fact.access_count, fact.last_counted_tick, fact.tokens, fact.passage_id,
             fact.evicted_at, fact.evicted_tick, fact.evictions, fact.promotions, fact.cycles,
             fact.hits_since_eviction, *((norm,) if norm is not None else ()), fact.id),
        )

    def totals(self) -> FactTotals:
        evictions, promotions, cycles, most = self.store.execute(
            "SELECT coalesce(sum(evictions), 0), coalesce(sum(promotions), 0),"
            " coalesce(sum(cycles), 0),"
            # The worst cycler is one the report can list: forgotten facts are not.
            " coalesce(max(CASE WHEN forgotten_at IS NULL THEN cycles END), 0) FROM facts"
        ).fetchone()
        return FactTotals(int(evictions), int(promotions), int(cycles), int(most))

    def cycling(self, min_cycles: int, limit: int) -> list[Fact]:
        return list(map(fact_from_row, self.store.execute(
            f"SELECT {_COLUMNS} FROM facts WHERE cycles >= ? AND forgotten_at IS NULL"
            " ORDER BY cycles DESC LIMIT ?",
            (min_cycles, limit))))

    def learned_from(self, message_ids: Sequence[int]) -> list[int]:
        return ids_where(self.store, "facts", "source_message_id", message_ids)

    def forgotten_from(self, message_ids: Sequence[int]) -> list[Fact]:
        found: list[Fact] = []
        unique = list(dict.fromkeys(message_ids))
        for start in range(0, len(unique), CHUNK):
            chunk = tuple(unique[start : start + CHUNK])
            found += map(fact_from_row, self.store.execute(
                f"SELECT {_COLUMNS} FROM facts WHERE source_message_id IN "
                f"({','.join('?' * len(chunk))}) AND forgotten_at IS NOT NULL", chunk))
        return sorted(found, key=lambda f: f.id)

    def delete(self, fact_ids: Sequence[int]) -> list[Fact]:
        # Forgotten facts too: forgetting keeps the row until it is erased.
        found = [fact for i in dict.fromkeys(fact_ids) if (fact := self._row(i)) is not None]
        delete_rows(self.store, "facts", [f.id for f in found])
        return found

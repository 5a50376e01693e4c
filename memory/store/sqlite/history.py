"""Events, history and settings in SQLite (the ``events``, ``history`` and ``meta`` tables)."""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from typing import TYPE_CHECKING

from tiermem.memory.store.bounds import check_event, check_point, check_state
from tiermem.memory.store.records import (
    SUPERSEDED_LIKE,
    Event,
    HistoryPoint,
    marked_superseded,
)
from tiermem.memory.store.references import (
    COUNTER_SETTINGS,
    CounterSettingCheck,
    check_point_tick,
)

if TYPE_CHECKING:
    from tiermem.memory.store.sqlite.store import SQLiteStore

# One row of scalar lookups: a write reads it, and it costs less than rows by key IN (...).
_COUNTERS = "SELECT " + ", ".join("(SELECT value FROM meta WHERE key = ?)"
                                  for _ in COUNTER_SETTINGS)
_FLOORS = ("SELECT (SELECT max(entered_core_seq) FROM facts), (SELECT max(tick) FROM history),"
           " (SELECT max(max(created_tick), max(last_access)) FROM facts)")
# A fact retired and still held as no longer true: a retirement taken back (the fact stated
# again, or the statement that retired it taken back) or a fact forgotten is not counted.
_RETIRED = ("SELECT p.metadata FROM facts f JOIN passages p ON p.id = f.passage_id"
            " WHERE f.tier = 'archival' AND f.forgotten_at IS NULL AND p.metadata LIKE ?"
            " AND EXISTS (SELECT 1 FROM events e WHERE e.kind = 'retire' AND e.fact_id = f.id)")
_POINT = ("tick, created_at, core_facts, core_size, durable_in_core, archival_passages,"
          " recall_messages, evictions, promotions")


def stored_counters(store: SQLiteStore) -> dict[str, str]:
    """The settings that bound a row's counters (references.COUNTER_SETTINGS), those set."""
    row = store.execute(_COUNTERS, COUNTER_SETTINGS).fetchone()
    return {key: str(value) for key, value in zip(COUNTER_SETTINGS, row, strict=True)
            if value is not None}


def counter_floors(store: SQLiteStore) -> dict[str, float | None]:
    """The highest marks the rows hold on the counters (references.CounterFloors)."""
    core_seq, tick, reading = store.execute(_FLOORS).fetchone()
    return {"core_seq": core_seq, "tick": tick, "reading": reading}


class SQLiteHistory:
    """memory.store.contract.HistoryStore over the ``history`` and ``events`` tables."""

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store

    def record(self, point: HistoryPoint) -> None:
        check_point(point)
        check_point_tick(point, lambda: stored_counters(self.store))
        self.store.execute(
            f"INSERT OR REPLACE INTO history ({_POINT}) VALUES (?,?,?,?,?,?,?,?,?)",
            (point.tick, point.created_at, point.core_facts, point.core_size,
             point.durable_in_core, point.archival_passages, point.recall_messages,
             point.evictions, point.promotions))

    def points(self, newest: int | None = None) -> list[HistoryPoint]:
        if newest is None:
            rows = self.store.execute(f"SELECT {_POINT} FROM history ORDER BY tick")
        else:
            rows = self.store.execute(
                f"SELECT {_POINT} FROM history ORDER BY tick DESC LIMIT ?", (newest,))
        return [HistoryPoint(*row) for row in rows]

    def add_event(self, event: Event) -> int:
        check_event(event)
        cursor = self.store.execute(
            "INSERT INTO events (tick, kind, fact_id, detail, created_at) VALUES (?,?,?,?,?)",
            (event.tick, event.kind, event.fact_id, event.detail, event.created_at))
        return int(cursor.lastrowid or 0)

    def last_event_id(self) -> int:
        return int(self.store.execute("SELECT coalesce(max(id), 0) FROM events").fetchone()[0])

    def events_since(self, event_id: int) -> list[Event]:
        rows = self.store.execute(
            "SELECT id, tick, kind, fact_id, detail, created_at FROM events WHERE id > ?"
            " ORDER BY id", (event_id,))
        return [Event(id=r["id"], tick=r["tick"], kind=r["kind"], fact_id=r["fact_id"],
                      detail=r["detail"], created_at=r["created_at"])
                for r in rows]

    def durable_evictions(self) -> int:
        return int(self.store.execute(
            "SELECT count(*) FROM events e JOIN facts f ON f.id = e.fact_id"
            " WHERE e.kind = 'evict' AND f.durability = 'durable'").fetchone()[0])

    def retirements(self) -> int:
        rows = self.store.execute(_RETIRED, (SUPERSEDED_LIKE,))
        return sum(marked_superseded(metadata) for (metadata,) in rows)


class SQLiteSettings:
    """memory.store.contract.SettingsStore over the ``meta`` table."""

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store
        home = store.home
        repair = None if home is None else f"tiermem upgrade --home {shlex.quote(str(home))}"
        # The reads close over the store, not self: a check holding its settings would be
        # a cycle of their own, freed only when the garbage collector runs.
        self._counter_check = CounterSettingCheck(lambda: stored_counters(store),
                                                  lambda: counter_floors(store), repair)

    def counters_behind(self) -> dict[str, tuple[str, int]]:
        return self._counter_check.behind()

    def get(self, key: str, default: str | None = None) -> str | None:
        row = self.store.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set(self, key: str, value: object) -> None:
        check_state(key, value)
        self._counter_check.check(key, value)
        self.store.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, str(value)),
        )

    def delete(self, keys: Iterable[str]) -> None:
        self._counter_check.forget()
        for key in keys:
            self.store.execute("DELETE FROM meta WHERE key = ?", (key,))

    def items(self, prefix: str = "") -> list[tuple[str, str]]:
        # substr rather than LIKE: a prefix may hold % or _.
        rows = self.store.execute(
            "SELECT key, value FROM meta WHERE substr(key, 1, ?) = ? ORDER BY key",
            (len(prefix), prefix))
        return [(str(k), str(v)) for k, v in rows]

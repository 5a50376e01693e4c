"""History, events and settings of one agent in PostgreSQL (memory.store.contract's
HistoryStore and SettingsStore)."""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Sequence
from typing import Any

from tiermem.memory.store.bounds import check_event, check_point, check_state
from tiermem.memory.store.postgres.scope import Scope
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


def stored_counters(scope: Scope) -> dict[str, str]:
    """The settings that bound a row's counters (references.COUNTER_SETTINGS), those set."""
    return {str(k): str(v) for k, v in scope.rows(
        "SELECT key, value FROM tiermem.settings WHERE agent_id = %s AND key = ANY(%s)",
        (list(COUNTER_SETTINGS),))}


def counter_floors(scope: Scope) -> dict[str, float | None]:
    """The highest marks the rows hold on the counters (references.CounterFloors)."""
    row = scope.one(
        "SELECT (SELECT max(entered_core_seq) FROM tiermem.facts WHERE agent_id = %s), "
        "(SELECT max(tick) FROM tiermem.history WHERE agent_id = %s), "
        "(SELECT greatest(max(created_tick), max(last_access)) FROM tiermem.facts "
        "WHERE agent_id = %s)", (scope.agent, scope.agent))
    core_seq, tick, reading = row if row is not None else (None, None, None)
    return {"core_seq": core_seq, "tick": tick, "reading": reading}


class PgHistory:
    """memory.store.contract.HistoryStore over ``tiermem.history`` and ``tiermem.events``."""

    def __init__(self, scope: Scope) -> None:
        self.scope = scope

    def record(self, point: HistoryPoint) -> None:
        check_point(point)
        check_point_tick(point, lambda: stored_counters(self.scope))
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
        check_event(event)
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

    def retirements(self) -> int:
        # As memory/store/sqlite/history.py counts them: facts still held as retired.
        rows = self.scope.rows(
            "SELECT p.metadata FROM tiermem.facts f JOIN tiermem.passages p "
            "ON p.agent_id = f.agent_id AND p.id = f.passage_id "
            "WHERE f.agent_id = %s AND f.tier = 'archival' AND f.forgotten_at IS NULL "
            "AND p.metadata LIKE %s AND EXISTS (SELECT 1 FROM tiermem.events e "
            "WHERE e.agent_id = f.agent_id AND e.kind = 'retire' AND e.fact_id = f.id)",
            (SUPERSEDED_LIKE,))
        return sum(marked_superseded(metadata) for (metadata,) in rows)


class PgSettings:
    """memory.store.contract.SettingsStore over ``tiermem.settings``."""

    def __init__(self, scope: Scope, agent: str) -> None:
        self.scope = scope
        repair = f"tiermem upgrade --agent {shlex.quote(agent)} --store DSN"
        # The reads close over the scope, not self: a check holding its settings would make a
        # cycle, and a backend dropped unclosed would keep its connection and writer lock
        # until the garbage collector ran.
        self._counter_check = CounterSettingCheck(lambda: stored_counters(scope),
                                                  lambda: counter_floors(scope), repair)

    def counters_behind(self) -> dict[str, tuple[str, int]]:
        return self._counter_check.behind()

    def get(self, key: str, default: str | None = None) -> str | None:
        value = self.scope.setting(key)
        return default if value is None else value

    def set(self, key: str, value: object) -> None:
        check_state(key, value)
        self._counter_check.check(key, value)
        self.scope.run("INSERT INTO tiermem.settings (agent_id, key, value) VALUES (%s, %s, %s) "
                       "ON CONFLICT (agent_id, key) DO UPDATE SET value = excluded.value",
                       (key, str(value)))

    def delete(self, keys: Iterable[str]) -> None:
        self._counter_check.forget()
        self.scope.run("DELETE FROM tiermem.settings WHERE agent_id = %s AND key = ANY(%s)",
                       (list(keys),))

    def items(self, prefix: str = "") -> list[tuple[str, str]]:
        rows = self.scope.rows(
            "SELECT key, value FROM tiermem.settings WHERE agent_id = %s "
            "AND starts_with(key, %s) ORDER BY key COLLATE \"C\"", (prefix,))
        return [(str(k), str(v)) for k, v in rows]

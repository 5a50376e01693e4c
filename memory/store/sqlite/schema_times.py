"""Migration 21 of the SQLite schema: times stored in milliseconds become seconds
(memory/store/millisecond_times.py says which and why); memory/store/sqlite/schema.py runs
it in its place."""

from __future__ import annotations

import sqlite3

from tiermem.memory.store.millisecond_times import (
    CLOCK_SETTING,
    GUARDS,
    SUPERSEDED_KEY,
    WALL,
    column_conversions,
    in_milliseconds,
)

_ON_THE_WALL_CLOCK = (f"EXISTS (SELECT 1 FROM meta WHERE key = '{CLOCK_SETTING}'"
                      f" AND value = '{WALL}')")
_SUPERSEDED = f"json_extract(metadata, '$.{SUPERSEDED_KEY}')"


def _conversions() -> list[str]:
    statements = column_conversions(str, _ON_THE_WALL_CLOCK)
    # CASE, so a metadata that is no JSON is never parsed (json_extract would fail on it).
    statements.append(
        f"UPDATE passages SET metadata = json_set(metadata, '$.{SUPERSEDED_KEY}',"
        f" {_SUPERSEDED} / 1000.0) WHERE CASE WHEN json_valid(metadata) AND"
        f" json_type(metadata, '$.{SUPERSEDED_KEY}') IN ('integer', 'real')"
        f" THEN {in_milliseconds(_SUPERSEDED)} ELSE 0 END")
    return statements


def times_in_seconds(conn: sqlite3.Connection) -> None:
    """Migration 21: every stored time in milliseconds, in seconds. The triggers that would
    refuse the updates are taken off for them and put back as they were, in the
    migration's transaction, so no other write ever passes them."""
    names = [name for guards in GUARDS.values() for name in guards]
    marks = ", ".join("?" for _ in names)
    guards = conn.execute(f"SELECT name, sql FROM sqlite_master WHERE type = 'trigger'"
                          f" AND name IN ({marks})", names).fetchall()
    for name, _ in guards:
        conn.execute(f"DROP TRIGGER {name}")
    for statement in _conversions():
        conn.execute(statement)
    for _, sql in guards:
        conn.execute(sql)

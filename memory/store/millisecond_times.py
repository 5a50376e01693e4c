"""Times older versions stored in milliseconds, and the rule that finds them.

Before the clock a memory is given was checked (commit 0056c7e), ``now=`` took any
callable, so a memory kept with a clock in milliseconds holds times of about 1.7e12 for
2024. The live API refuses such a time, so copying one (a fact evicted to archival, a
passage rewritten) failed, and searches could neither filter nor show them. Restore has
always read them (memory/ops/snapshot_models.py): a time that is no date as seconds but
is one as milliseconds is divided by 1000. Each backend's migration applies that rule to
every stored time (memory/store/sqlite/schema_times.py, memory/store/postgres/
schema_times.py), so a time that is a date as seconds is never changed.
"""

from __future__ import annotations

from collections.abc import Callable

from tiermem.memory.store.records import SUPERSEDED_AT
from tiermem.memory.validation import EARLIEST_TIME, LATEST_TIME

#: Every column holding a time by the wall clock, by table (the models of a snapshot's rows
#: in memory/ops/snapshot_models.py that are a ``Moment``).
WALL_CLOCK_COLUMNS: dict[str, tuple[str, ...]] = {
    "facts": ("created_at", "evicted_at", "forgotten_at"),
    "passages": ("created_at", "evicted_at", "forgotten_at"),
    "messages": ("created_at", "forgotten_at"),
    "history": ("created_at",),
    "events": ("created_at",),
    "erasures": ("erased_at",),
    "forget_requests": ("created_at",),
    "forgotten_norms": ("forgotten_at",),
}

#: A fact's columns on the memory's clock: times by the wall clock only when the setting
#: ``clock`` is ``WALL``, else interaction counts, which any size may be.
CLOCK_READINGS = ("created_tick", "last_access")
CLOCK_SETTING, WALL = "clock", "wall"

#: The key of a passage's metadata that holds when its fact was superseded, a time too.
SUPERSEDED_KEY = SUPERSEDED_AT

#: The triggers that refuse the conversion's updates: recall's messages are never edited,
#: and a forgotten row's time of forgetting never changes. Each migration lets its own
#: statements past them, and no other.
GUARDS: dict[str, tuple[str, ...]] = {
    "messages": ("messages_no_edit", "messages_stays_forgotten"),
    "facts": ("facts_stays_forgotten",),
    "passages": ("passages_stays_forgotten",),
}


def _is_a_date(value: str) -> str:
    return f"{value} BETWEEN {EARLIEST_TIME!r} AND {LATEST_TIME!r}"


def in_milliseconds(value: str) -> str:
    """SQL true where ``value`` is no date as seconds but is one as milliseconds."""
    return f"NOT ({_is_a_date(value)}) AND {_is_a_date(f'{value} / 1000.0')}"


def column_conversions(table_named: Callable[[str], str], on_the_wall_clock: str) -> list[str]:
    """One statement per column, each writing only the rows the rule finds: ``table_named``
    gives a table's name as the backend knows it, and ``on_the_wall_clock`` is SQL true
    for a fact (``f``) of a memory whose clock is the wall clock."""
    statements = [f"UPDATE {table_named(table)} SET {column} = {column} / 1000.0"
                  f" WHERE {in_milliseconds(column)}"
                  for table, columns in WALL_CLOCK_COLUMNS.items() for column in columns]
    return statements + [f"UPDATE {table_named('facts')} AS f SET {column} = {column} / 1000.0"
                         f" WHERE {on_the_wall_clock} AND {in_milliseconds(column)}"
                         for column in CLOCK_READINGS]

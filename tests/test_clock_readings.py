"""A fact's clock readings never come from the future: a snapshot's restore refuses one,
and a score computed for one (a wall clock set back) stays finite."""

from __future__ import annotations

import json
from typing import Any

import pytest
from memory_helpers import make_memory

from tiermem.memory.config import WALL_TAU
from tiermem.memory.errors import SnapshotError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.validation import LATEST_TIME

WALL_NOW = 1_715_176_560.0  # 2024-05-08T13:56:00Z


def _snapshot(clock: str) -> dict[str, Any]:
    with make_memory(clock=clock, now=lambda: WALL_NOW) as m:
        with m.interaction():
            m.add_fact("User is allergic to peanuts", "durable")
        m.add_fact("User lives in Lyon", "durable")
        return json.loads(json.dumps(m.snapshot()))


# On the interaction clock, a reading past the tick; on the wall clock, the year 9999
# (a date, so no other check refuses it): either overflowed the fact's score once restored.
FUTURE = {"logical": lambda snap: snap["settings"]["tick"] + 100_000.0,
          "wall": lambda snap: LATEST_TIME - 1}


@pytest.mark.parametrize("clock", sorted(FUTURE))
@pytest.mark.parametrize("field", ["last_access", "created_tick"])
def test_a_reading_past_the_snapshots_clock_is_refused_naming_it(clock: str,
                                                                  field: str) -> None:
    snap = _snapshot(clock)
    snap["tables"]["facts"][1][field] = FUTURE[clock](snap)
    with pytest.raises(SnapshotError, match="no fact is read after its memory's clock") as info:
        HierarchicalMemory.restore(snap)
    assert info.value.fields == (f"tables.facts[1].{field}",)


@pytest.mark.parametrize("clock", sorted(FUTURE))
def test_readings_up_to_the_snapshots_clock_restore(clock: str) -> None:
    snap = _snapshot(clock)
    for fact in snap["tables"]["facts"]:
        fact["last_access"] = float(snap["settings"]["tick"]) if clock == "logical" else WALL_NOW
    with HierarchicalMemory.restore(snap) as m:
        assert sorted(f.last_access for f in m.facts()) == [
            f["last_access"] for f in snap["tables"]["facts"]]


def test_a_fact_read_after_a_wall_clock_set_back_scores_as_just_read() -> None:
    now = [WALL_NOW]
    with make_memory(clock="wall", now=lambda: now[0]) as m:
        m.add_fact("User is allergic to peanuts", "durable")
        now[0] = WALL_NOW - 1000 * WALL_TAU  # about three years back: exp(1000) overflows
        (fact,) = m.facts()
        assert m.fact_score(fact) == max(fact.access_count, 1)

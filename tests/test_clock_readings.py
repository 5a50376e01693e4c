"""A fact's clock readings past its memory's clock: past the tick of the interaction clock a
snapshot's restore refuses one (no memory writes it); on the wall clock, where a clock set
back or run ahead writes them, it restores, and its score stays finite."""

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


@pytest.mark.parametrize("field", ["last_access", "created_tick"])
def test_a_reading_past_the_snapshots_tick_is_refused_naming_it(field: str) -> None:
    # Past the tick, the reading overflowed the fact's score once restored.
    snap = _snapshot("logical")
    snap["tables"]["facts"][1][field] = snap["settings"]["tick"] + 100_000.0
    with pytest.raises(SnapshotError, match="no fact is read after its memory's clock") as info:
        HierarchicalMemory.restore(snap)
    assert info.value.fields == (f"tables.facts[1].{field}",)


@pytest.mark.parametrize("clock", ["logical", "wall"])
def test_readings_up_to_the_snapshots_clock_restore(clock: str) -> None:
    snap = _snapshot(clock)
    for fact in snap["tables"]["facts"]:
        fact["last_access"] = float(snap["settings"]["tick"]) if clock == "logical" else WALL_NOW
    with HierarchicalMemory.restore(snap) as m:
        assert sorted(f.last_access for f in m.facts()) == [
            f["last_access"] for f in snap["tables"]["facts"]]


def test_a_wall_clock_memory_that_ran_ahead_restores_and_scores_as_just_read() -> None:
    # A memory whose clock ran days ahead (a simulation's now=, a machine whose date was
    # wrong) writes readings in the future; its snapshot is its backup and must restore.
    ahead = LATEST_TIME - 1  # the year 9999, a date: no other check refuses it
    with make_memory(clock="wall", now=lambda: ahead) as m:
        m.add_fact("User lives in Lyon", "durable")
        snap = json.loads(json.dumps(m.snapshot()))
    with HierarchicalMemory.restore(snap) as restored:
        (fact,) = restored.facts()
        assert fact.last_access == ahead
        assert restored.fact_score(fact) == max(fact.access_count, 1)


def test_a_fact_read_after_a_wall_clock_set_back_scores_as_just_read() -> None:
    now = [WALL_NOW]
    with make_memory(clock="wall", now=lambda: now[0]) as m:
        m.add_fact("User is allergic to peanuts", "durable")
        now[0] = WALL_NOW - 1000 * WALL_TAU  # about three years back: exp(1000) overflows
        (fact,) = m.facts()
        assert m.fact_score(fact) == max(fact.access_count, 1)

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


def test_a_fact_read_ahead_of_a_clock_set_back_is_evicted_by_its_score() -> None:
    # Its key took the reading as it was: read "30 days ahead", it outranked e^30 accesses
    # and stayed in core whatever its score, while the fact used most was evicted.
    now = [WALL_NOW + 30 * 86_400.0]  # the clock runs 30 days fast
    with make_memory(core_limit=2, core_limit_unit="facts", clock="wall",
                     now=lambda: now[0]) as m:
        ahead = m.add_fact("alpha fact read once while the clock was fast", "durable")
        now[0] = WALL_NOW  # corrected
        used = m.add_fact("bravo fact used often", "durable")
        for _ in range(5):
            now[0] += 60
            with m.interaction():
                m.query("bravo fact used often")
        now[0] += 60
        scores = {f.id: m.fact_score(f) for f in m.core}
        assert scores[ahead] < scores[used]
        m.add_fact("charlie new fact", "durable")
        assert m.fact(ahead).tier == "archival" and m.fact(used).tier == "core"


def test_the_heap_pops_in_score_order_as_the_clock_moves_both_ways() -> None:
    import dataclasses
    import random

    from tiermem.memory.tiers.policies import EvictionHeap, make_policy
    from tiermem.memory.types import Fact

    rng = random.Random(7)
    now = [100.0]
    for name in ("freq_recency_durable", "freq_recency", "lru"):
        policy = make_policy(name, tau=5.0)
        heap = EvictionHeap(policy, lambda: now[0])
        facts: dict[int, Fact] = {}
        for i in range(1, 300):
            now[0] = rng.uniform(50, 150)  # set back and forward between pushes
            fact = Fact(id=i, text=str(i), durability=rng.choice(("durable", "short-lived")),
                        created_at=0, created_tick=0, last_access=rng.uniform(0, 200),
                        access_count=rng.randint(1, 9), source="", tokens=1,
                        entered_core_seq=i)
            facts[i] = fact
            heap.push(fact)
        while facts:
            now[0] = rng.uniform(50, 150)
            # The score order at the time of the pop: a reading after it counts as now.
            expected = min(facts.values(), key=lambda f: policy.key(
                dataclasses.replace(f, last_access=min(f.last_access, now[0]))))
            got = heap.pop_min()
            assert got is not None and got.id == expected.id, name
            del facts[got.id]
        assert heap.pop_min() is None

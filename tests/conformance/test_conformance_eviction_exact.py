"""Every eviction choice equals a brute-force choice over all of core.

The heap behind eviction (memory.tiers.policies.EvictionHeap) is lazy: it keeps
stale entries and must tell them from live ones. This property test drives
random sequences of adds, re-assertions, retires, promotions back from
archival, edits, used search hits, idle interactions and close + reopen of a
stored memory (on every backend), and checks every plan the engine makes against a plan
computed from scratch: sort every core fact by the policy's key, recomputed
from the fact's current fields (ties go to the earlier entry into core, then
the lower id, as memory.tiers.policies documents), and take victims in that order
until the newcomer fits or the policy protects the next one.
"""

from __future__ import annotations

from typing import Any

import pytest
from backends import Backend, Home
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from memory_helpers import check_core_invariants

from tiermem.memory.errors import InvalidInputError, MemoryLimitError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.tiers.policies import POLICY_NAMES, EvictionPolicy
from tiermem.memory.types import Fact

VOCAB = ("amber", "basil", "cedar", "dune", "ember", "fjord", "garnet", "harbor", "iris", "kelp")

words = st.lists(st.sampled_from(VOCAB), min_size=1, max_size=3)
durability = st.sampled_from(("durable", "short-lived"))
add = st.tuples(st.just("add"), words, durability)
op = st.one_of(
    add, add, add,  # new facts are what makes core overflow
    st.tuples(st.just("reassert"), st.integers(0, 99), durability),
    st.tuples(st.just("retire"), st.integers(0, 99)),
    st.tuples(st.just("promote"), st.integers(0, 99)),
    st.tuples(st.just("cycle"), st.integers(0, 99)),
    st.tuples(st.just("edit"), st.integers(0, 99), words),
    st.tuples(st.just("query"), st.sampled_from(VOCAB)),
    st.tuples(st.just("idle"), st.integers(1, 8)),
    st.tuples(st.just("reopen")),
)


def brute_force_plan(
    core: list[Fact], policy: EvictionPolicy, used: int, limit: int, size: Any,
    incoming: Fact, extra: int, exclude: int | None,
) -> list[int] | None:
    """The victims ``CoreTier.plan_room`` must choose, found by sorting all of core."""
    need = used + extra - limit
    ranked = sorted((f for f in core if f.id != exclude), key=policy.key)
    victims: list[int] = []
    freed = 0
    for fact in ranked:
        if freed >= need:
            break
        if not policy.may_evict_for(fact, incoming):
            return None
        victims.append(fact.id)
        freed += size(fact)
    return victims if freed >= need else None


class PlanChecker:
    """Wraps a memory's ``plan_room`` to compare each plan with the brute-force one."""

    def __init__(self) -> None:
        self.plans = 0
        self.victims = 0

    def install(self, m: HierarchicalMemory) -> None:
        core = m.core
        original = core.plan_room

        def checked(incoming: Fact, extra: int, exclude: int | None = None) -> list[Fact] | None:
            facts = list(core)
            used = sum(core.size(f) for f in facts)
            expected = brute_force_plan(facts, m.policy, used, core.limit, core.size,
                                        incoming, extra, exclude)
            victims = original(incoming, extra, exclude)
            assert (None if victims is None else [v.id for v in victims]) == expected
            self.plans += 1
            self.victims += len(victims or [])
            return victims

        core.plan_room = checked  # type: ignore[method-assign]


def _open(home: Home, policy: str, unit: str, limit: int, hits: tuple[int, int],
          checker: PlanChecker) -> HierarchicalMemory:
    m = home.open(core_limit=limit, core_limit_unit=unit, policy=policy, tau=10.0,
                    promote_hits=hits[0], recent_promote_hits=hits[1])
    checker.install(m)
    return m


def _pick(facts: list[Fact], index: int) -> Fact | None:
    return facts[index % len(facts)] if facts else None


def _apply(m: HierarchicalMemory, o: tuple[Any, ...], step: int) -> None:
    kind = o[0]
    try:
        if kind == "add":
            m.add_fact(f"{' '.join(o[1])} n{step}x", o[2])
        elif kind == "reassert" and (fact := _pick(m.facts(), o[1])):
            m.add_fact(fact.text, o[2])
        elif kind == "retire" and (fact := _pick(list(m.core), o[1])):
            m.replace_in_core(fact.text, "")
        elif kind == "promote" and (
            fact := _pick([f for f in m.facts() if f.tier == "archival"], o[1])
        ):
            m.add_fact(fact.text, fact.durability)  # a hit; enough hits promote it
        elif kind == "cycle" and (fact := _pick(list(m.core), o[1])):
            m.replace_in_core(fact.text, "")  # retire, then straight back on the next hit
            m.add_fact(fact.text, fact.durability)
        elif kind == "edit" and (fact := _pick(list(m.core), o[1])):
            m.replace_in_core(fact.text, f"{' '.join(o[2])} e{step}x")
        elif kind == "query":
            m.query(o[1], k=3)
        elif kind == "idle":
            for _ in range(o[1]):
                with m.interaction():
                    pass
    except (InvalidInputError, MemoryLimitError):
        pass  # a refused edit or oversized fact changes nothing; the invariants say so


@pytest.mark.parametrize("policy", POLICY_NAMES)
@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    ops=st.lists(op, min_size=15, max_size=60),
    unit_limit=st.one_of(st.tuples(st.just("facts"), st.integers(1, 3)),
                         st.tuples(st.just("tokens"), st.integers(6, 14))),
    hits=st.sampled_from([(1, 1), (1, 2), (2, 3)]),
)
def test_every_eviction_matches_the_brute_force_choice(
    backend: Backend, policy: str, ops: list[tuple[Any, ...]], unit_limit: tuple[str, int],
    hits: tuple[int, int],
) -> None:
    unit, limit = unit_limit
    checker = PlanChecker()
    home = backend.home()
    m = _open(home, policy, unit, limit, hits, checker)
    try:
        for step, o in enumerate(ops):
            if o[0] == "reopen":
                m.close()
                m = _open(home, policy, unit, limit, hits, checker)
            else:
                _apply(m, o, step)
            check_core_invariants(m)
    finally:
        m.close()
    event("victims: " + ("none" if not checker.victims else
                         "1-4" if checker.victims < 5 else "5+"))


def test_the_checker_sees_a_retire_and_promote_back(backend: Backend) -> None:
    """The scenario that once broke the heap is among what the property test drives."""
    checker = PlanChecker()
    m = _open(backend.home(), "lru", "facts", 2, (1, 1), checker)
    with m:
        _apply(m, ("add", ["amber"], "durable"), 0)
        _apply(m, ("add", ["basil"], "durable"), 1)
        _apply(m, ("retire", 0), 2)
        _apply(m, ("promote", 0), 3)
        _apply(m, ("add", ["cedar"], "durable"), 4)
        assert [f.text for f in m.core] == ["amber n0x", "cedar n4x"]
    assert checker.victims == 1

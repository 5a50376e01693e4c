"""Eviction: what leaves core, in which order, at what cost, and where it goes.

The exact-eviction tests compare the engine with a brute-force model: at the
moment each victim is evicted, its frequency x recency score
``f * exp(-(t - t_last) / tau)``, computed here from the facts' fields, must be
the minimum over core (within its durability class for the durable policy).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from backends import Backend
from memory_helpers import (
    check_archival_consistent,
    check_core_invariants,
    evict_events,
    fr_score,
)

from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.tiers.core import CoreTier
from tiermem.memory.tiers.policies import EvictionHeap, make_policy
from tiermem.memory.types import Fact

WORDS = (
    "amber", "basil", "cedar", "dune", "ember", "fjord", "garnet", "harbor", "iris",
    "juniper", "kelp", "lagoon", "maple", "nectar", "onyx", "pepper", "quartz", "raven",
    "saffron", "tundra", "umber", "violet", "willow", "yarrow", "zephyr"
)


def _text(rng: random.Random, n: int) -> str:
    return f"{' '.join(rng.sample(WORDS, rng.randint(1, 4)))} item{n}"


# -- eviction is not deletion --------------------------------------------------------------


def test_every_evicted_fact_is_searchable_in_archival(backend: Backend) -> None:
    with backend.memory(core_limit=4, core_limit_unit="facts") as m:
        texts = [f"{w} is a colour the user likes number {i}" for i, w in enumerate(WORDS[:12])]
        ids = [m.add_fact(t, "durable") for t in texts]
        m.replace_in_core(texts[-1], "")  # a retired fact goes to archival too
        evicted = [f for f in m.facts() if f.tier == "archival"]
        assert len(evicted) == 9
        for fact in evicted:
            # The retired one was not evicted for room (test_conformance_retirements.py).
            assert fact.evictions == (fact.text != texts[-1]) and fact.evicted_at is not None
            hits = [h for h in m.archival_search(fact.text, k=10).hits if h.fact_id == fact.id]
            assert len(hits) == 1, fact.text
            hit = hits[0]
            assert hit.text == fact.text
            assert hit.was_in_core is True
            assert hit.evicted_at == fact.evicted_at
            assert hit.created_at == fact.created_at  # learned when added, not when evicted
            assert m.fact(hit.fact_id).id in ids
        check_archival_consistent(m)


def test_a_fact_evicted_twice_keeps_one_passage_with_its_latest_text(backend: Backend) -> None:
    with backend.memory(core_limit=2, core_limit_unit="facts", policy="lru",
                     promote_hits=1, recent_promote_hits=1) as m:
        a = m.add_fact("the staging cluster is amber", "durable")
        m.add_fact("basil note", "durable")
        m.add_fact("cedar note", "durable")
        assert m.fact(a).tier == "archival"
        first_eviction = m.fact(a).evicted_at
        m.add_fact("the staging cluster is amber")  # promoted back
        assert a in m.core
        m.replace_in_core("amber", "violet")
        m.add_fact("dune note", "durable")
        m.add_fact("ember note", "durable")
        fact = m.fact(a)
        assert fact.tier == "archival" and fact.evictions == 2
        assert fact.evicted_at >= first_eviction
        rows = [r["text"] for r in m.store.export_rows("passages") if r["fact_id"] == a]
        assert rows == ["the staging cluster is violet"]
        hit = m.archival_search("staging cluster violet").hits[0]
        assert (hit.fact_id, hit.was_in_core, hit.evicted_at) == (a, True, fact.evicted_at)
        assert not [h for h in m.archival_search("amber").hits if h.fact_id == a]
        check_archival_consistent(m)


def test_a_promoted_fact_s_passage_is_no_longer_marked_evicted(backend: Backend) -> None:
    now = [1_709_618_820.0]
    with backend.memory(core_limit=2, core_limit_unit="facts", policy="lru", promote_hits=1,
                        recent_promote_hits=1, now=lambda: now[0]) as m:
        a = m.add_fact("the staging cluster is amber", "durable")
        m.add_fact("basil note", "durable")
        now[0] += 60
        m.add_fact("cedar note", "durable")  # evicts a

        def passage() -> Any:
            [hit] = [h for h in m.archival_search("staging cluster amber").hits
                     if h.fact_id == a]
            return hit

        assert (passage().was_in_core, passage().evicted_at) == (True, now[0])
        m.add_fact("the staging cluster is amber")  # promoted back
        assert a in m.core
        # Still its archival copy, but not evicted, so nothing dates an undone eviction:
        # neither the passage nor the fact.
        assert (passage().was_in_core, passage().evicted_at) == (True, None)
        promoted = m.fact(a)
        assert promoted is not None and (promoted.evicted_at, promoted.evicted_tick) == (
            None, None)
        now[0] += 60
        m.add_fact("dune note", "durable")
        m.add_fact("ember note", "durable")  # evicts a again, at the new time
        assert m.fact(a).tier == "archival"
        assert passage().evicted_at == m.fact(a).evicted_at == now[0]
        check_archival_consistent(m)


def test_a_promoted_fact_that_never_was_in_core_gets_no_eviction_date(
    backend: Backend,
) -> None:
    with backend.memory(core_limit=2, core_limit_unit="facts") as m:
        m.add_fact("the production region is eu-west-1", "durable")
        m.add_fact("the on-call lead is Dana", "durable")
        lived = m.add_fact("the pod is restarting", "short-lived")  # bypass: core protected
        assert m.fact(lived).tier == "archival"
        m.replace_in_core("the on-call lead is Dana", "")  # room: stated again, it returns
        m.add_fact("the pod is restarting", "short-lived")
        assert lived in m.core
        [hit] = [h for h in m.archival_search("pod restarting").hits if h.fact_id == lived]
        assert (hit.was_in_core, hit.evicted_at) == (False, None)


# -- exact eviction against a brute-force model ---------------------------------------------


class EvictionRecorder:
    """Records core as it stood at the moment of each eviction."""

    def __init__(self, m: HierarchicalMemory) -> None:
        self.m = m
        self.records: list[tuple[Fact, list[Fact], float]] = []
        self._original = m.lifecycle.evict
        m.lifecycle.evict = self._evict  # type: ignore[method-assign]

    def _evict(self, fact: Fact) -> None:
        core = [Fact(**f.to_dict()) for f in self.m.core]
        self.records.append((Fact(**fact.to_dict()), core, self.m.clock_now()))
        self._original(fact)


def _workload(m: HierarchicalMemory, seed: int, steps: int) -> None:
    rng = random.Random(seed)
    texts: list[str] = []
    for step in range(steps):
        roll = rng.random()
        durability = rng.choice(("durable", "short-lived"))
        if roll < 0.45 or not texts:
            texts.append(_text(rng, step))
            m.add_fact(texts[-1], durability)
        elif roll < 0.75:
            m.add_fact(rng.choice(texts), durability)
        elif roll < 0.85:
            with m.interaction():
                for _ in range(rng.randint(1, 4)):
                    if rng.random() < 0.5:
                        texts.append(_text(rng, step))
                    m.add_fact(texts[-1] if rng.random() < 0.5 else rng.choice(texts),
                               rng.choice(("durable", "short-lived")))
        elif roll < 0.93:
            m.query(rng.choice(texts), k=3)
        else:
            for _ in range(rng.randint(1, 15)):  # time passes
                with m.interaction():
                    pass
        check_core_invariants(m)


def _check_min_score(records: list[tuple[Fact, list[Fact], float]], tau: float,
                     by_class: bool) -> None:
    for victim, core, now in records:
        assert victim.id in {f.id for f in core}
        others = [f for f in core if f.id != victim.id]
        if by_class:
            if victim.durability == "durable":
                assert all(f.durability == "durable" for f in others), (
                    "a durable fact was evicted while a short-lived one was in core")
            others = [f for f in others if f.durability == victim.durability]
        if not others:
            continue
        mine = fr_score(victim, now, tau)
        lowest = min(fr_score(f, now, tau) for f in others)
        assert mine <= lowest * (1 + 1e-9), (victim.text, mine, lowest)
        tied = [f for f in others if fr_score(f, now, tau) <= mine * (1 + 1e-9)]
        # Among equal scores the fact that entered core first leaves first.
        assert all(victim.entered_core_seq < f.entered_core_seq for f in tied)


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("unit,limit", [("facts", 6), ("tokens", 30)])
@pytest.mark.parametrize("policy", ["freq_recency", "freq_recency_durable"])
def test_evicted_fact_has_the_lowest_score(
    backend: Backend, policy: str, unit: str, limit: int, seed: int
) -> None:
    with backend.memory(core_limit=limit, core_limit_unit=unit, policy=policy, tau=10.0) as m:
        recorder = EvictionRecorder(m)
        _workload(m, seed, 250)
        assert len(recorder.records) >= 30, "the workload must exercise eviction"
        _check_min_score(recorder.records, m.tau, by_class=policy == "freq_recency_durable")
        # The events table tells the same story, in the same order.
        assert [e["fact_id"] for e in evict_events(m)] == [v.id for v, _, _ in recorder.records]
        check_archival_consistent(m)


class SteppingClock:
    """Wall-clock stand-in that moves forward a little on every reading."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.t = 1_700_000_000.0

    def __call__(self) -> float:
        self.t += self.rng.uniform(0, 3_000)
        return self.t


@pytest.mark.parametrize("seed", [11, 12])
@pytest.mark.parametrize("policy", ["freq_recency", "freq_recency_durable"])
def test_wall_clock_eviction_has_the_lowest_score(backend: Backend, policy: str, seed: int) -> None:
    with backend.memory(core_limit=6, core_limit_unit="facts", policy=policy, clock="wall",
                     now=SteppingClock(seed)) as m:
        assert m.tau == 86_400.0
        recorder = EvictionRecorder(m)
        _workload(m, seed, 200)
        assert len(recorder.records) >= 30
        _check_min_score(recorder.records, m.tau, by_class=policy == "freq_recency_durable")


@pytest.mark.parametrize("seed", [7, 8])
def test_default_policy_never_evicts_durable_for_short_lived(backend: Backend, seed: int) -> None:
    with backend.memory(core_limit=5, core_limit_unit="facts") as m:
        assert m.policy.name == "freq_recency_durable"
        rng = random.Random(seed)
        for step in range(200):
            durability = rng.choice(("durable", "short-lived"))
            before = {f.id: f.durability for f in m.core}
            last = max((e["id"] for e in evict_events(m)), default=0)
            fid = m.add_fact(_text(rng, step), durability)
            for event in evict_events(m, last):
                assert before[event["fact_id"]] == "short-lived" or durability == "durable"
                if before[event["fact_id"]] == "durable":
                    assert "short-lived" not in before.values()
            if durability == "short-lived" and all(d == "durable" for d in before.values()) \
                    and len(before) == 5:
                # Core full of durable facts: the newcomer is filed in archival instead.
                assert m.fact(fid).tier == "archival"
                assert m.fact(fid).evictions == 0


def test_durable_fact_survives_heavier_use_of_short_lived_facts(backend: Backend) -> None:
    with backend.memory(core_limit=3, core_limit_unit="facts") as m:
        durable = m.add_fact("User is allergic to peanuts", "durable")
        hot = m.add_fact("the queue is spiking", "short-lived")
        for _ in range(5):
            m.add_fact("the queue is spiking")
        m.add_fact("the pod is restarting", "short-lived")
        m.add_fact("the cache is cold", "short-lived")
        assert durable in m.core
        assert hot in m.core  # the lesser-used short-lived fact left
        assert [e["text"] for e in evict_events(m)] == ["the pod is restarting"]
    with backend.memory(core_limit=3, core_limit_unit="facts", policy="freq_recency") as m:
        durable = m.add_fact("User is allergic to peanuts", "durable")
        m.add_fact("the queue is spiking", "short-lived")
        for _ in range(5):
            m.add_fact("the queue is spiking")
        m.add_fact("the pod is restarting", "short-lived")
        m.add_fact("the cache is cold", "short-lived")
        # Without durability the oldest, least-used fact goes, durable or not.
        assert durable not in m.core


# -- fifo / lru / lfu ------------------------------------------------------------------------


def _evicted_texts(m: HierarchicalMemory) -> list[str]:
    return [e["text"] for e in evict_events(m)]


def test_fifo_evicts_in_order_of_entry_whatever_the_use(backend: Backend) -> None:
    with backend.memory(core_limit=3, core_limit_unit="facts", policy="fifo") as m:
        for t in ("a1 apple", "b1 banana", "c1 cherry"):
            m.add_fact(t)
        for _ in range(3):
            m.add_fact("a1 apple")
        m.add_fact("d1 date")
        m.add_fact("e1 elder")
        assert _evicted_texts(m) == ["a1 apple", "b1 banana"]
        assert [f.text for f in m.core] == ["c1 cherry", "d1 date", "e1 elder"]


def test_lru_evicts_the_least_recently_accessed(backend: Backend) -> None:
    with backend.memory(core_limit=3, core_limit_unit="facts", policy="lru") as m:
        for t in ("a1 apple", "b1 banana", "c1 cherry"):
            m.add_fact(t)
        m.add_fact("a1 apple")  # a is now the most recent
        m.add_fact("d1 date")
        assert _evicted_texts(m) == ["b1 banana"]
        m.query("cherry")  # a used search hit is an access
        m.add_fact("e1 elder")
        assert _evicted_texts(m) == ["b1 banana", "a1 apple"]


def test_lru_after_retire_and_promote_back_evicts_by_the_new_access(backend: Backend) -> None:
    with backend.memory(core_limit=2, core_limit_unit="facts", policy="lru",
                     promote_hits=1, recent_promote_hits=1) as m:
        a = m.add_fact("a1 apple")
        b = m.add_fact("b1 banana")
        m.replace_in_core("a1 apple", "")  # retired to archival
        m.add_fact("a1 apple")  # one hit promotes it back
        assert a in m.core
        assert (m.fact(a).last_access, m.fact(b).last_access) == (3.0, 2.0)
        m.add_fact("c1 cherry")
        # b is the least recently accessed; a's entry from before the retire is stale.
        assert m.fact(b).tier == "archival"
        assert [f.text for f in m.core] == ["a1 apple", "c1 cherry"]


def test_lfu_evicts_the_least_frequently_accessed_even_if_new(backend: Backend) -> None:
    with backend.memory(core_limit=3, core_limit_unit="facts", policy="lfu") as m:
        for t in ("a1 apple", "b1 banana", "c1 cherry"):
            m.add_fact(t)
        m.add_fact("a1 apple")
        m.add_fact("c1 cherry")
        m.add_fact("c1 cherry")
        m.add_fact("d1 date")
        assert _evicted_texts(m) == ["b1 banana"]
        m.add_fact("e1 elder")  # d has one access, fewer than a (2) and c (3)
        assert _evicted_texts(m) == ["b1 banana", "d1 date"]
        assert {f.text: f.access_count for f in m.core} == {
            "a1 apple": 2, "c1 cherry": 3, "e1 elder": 1}


def test_policies_are_selectable_and_unknown_names_are_refused(backend: Backend) -> None:
    for name in ("fifo", "lru", "lfu", "freq_recency", "freq_recency_durable"):
        with backend.memory(policy=name) as m:
            assert m.policy.name == name
    with pytest.raises(ValueError, match="unknown eviction policy"):
        backend.memory(policy="random")


# -- eviction cost does not grow with core ---------------------------------------------------


class CountingPolicy:
    """Wraps a policy and counts how often the engine asks it about a fact."""

    def __init__(self, name: str) -> None:
        self.inner = make_policy(name)
        self.name = self.inner.name
        self.key_calls = 0
        self.guard_calls = 0

    def key(self, fact: Fact) -> tuple[float, ...]:
        self.key_calls += 1
        return self.inner.key(fact)

    def may_evict_for(self, victim: Fact, incoming: Fact) -> bool:
        self.guard_calls += 1
        return self.inner.may_evict_for(victim, incoming)


def _calls_per_eviction(backend: Backend, n: int,
                        monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    policy = CountingPolicy("freq_recency_durable")
    m = backend.memory(core_limit=n, core_limit_unit="facts", policy=policy)  # type: ignore[arg-type]
    try:
        with m.interaction():
            for i in range(n):
                m.add_fact(f"fact {i}", "durable" if i % 3 else "short-lived")
        assert len(m.core) == n
        with monkeypatch.context() as patch:
            def no_scan(*_: Any) -> Any:
                raise AssertionError("eviction iterated over all of core")
            patch.setattr(CoreTier, "__iter__", no_scan)
            patch.setattr(CoreTier, "reload", no_scan)
            patch.setattr(EvictionHeap, "reset", no_scan)
            policy.key_calls = policy.guard_calls = 0
            evictions = 20
            for i in range(evictions):
                m.add_fact(f"newcomer {i}", "durable")
        assert len(m.core) == n
        assert sum(f.evictions for f in m.facts()) == evictions
        return policy.key_calls, policy.guard_calls
    finally:
        m.close()


def test_eviction_does_not_scan_core(backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    small = _calls_per_eviction(backend, 1_000, monkeypatch)
    large = _calls_per_eviction(backend, 10_000, monkeypatch)
    # 20 evictions: one key for each newcomer, one guard check for each victim.
    for key_calls, guard_calls in (small, large):
        assert key_calls <= 2 * 20
        assert guard_calls <= 2 * 20
    assert large == small


def test_heap_pop_order_matches_sorting_by_key() -> None:
    rng = random.Random(3)
    policy = make_policy("freq_recency_durable", tau=5.0)
    heap = EvictionHeap(policy)
    facts = {}
    for i in range(1, 400):
        f = Fact(id=i, text=str(i), durability=rng.choice(("durable", "short-lived")),
                 created_at=0, created_tick=0, last_access=rng.randint(0, 50),
                 access_count=rng.randint(1, 9), source="", tokens=1, entered_core_seq=i)
        facts[i] = f
        heap.push(f)
    for _ in range(300):  # updates and removals, lazily invalidated
        f = facts[rng.choice(list(facts))]
        if rng.random() < 0.3:
            heap.remove(f.id)
            del facts[f.id]
        else:
            f.access_count += 1
            f.last_access += rng.randint(0, 10)
            heap.push(f)
    assert len(heap) == len(facts)
    expected = sorted(facts.values(), key=policy.key)
    popped = []
    while (f := heap.pop_min()) is not None:
        popped.append(f.id)
    assert popped == [f.id for f in expected]


def test_heap_entry_from_before_a_removal_is_never_live_again() -> None:
    heap = EvictionHeap(make_policy("lru"))
    a = Fact(id=1, text="a", durability="durable", created_at=0, created_tick=0,
             last_access=1, access_count=1, source="", tokens=1, entered_core_seq=1)
    b = Fact(id=2, text="b", durability="durable", created_at=0, created_tick=0,
             last_access=2, access_count=1, source="", tokens=1, entered_core_seq=2)
    heap.push(a)
    heap.push(b)
    heap.remove(a.id)
    a.last_access, a.entered_core_seq = 3, 3
    heap.push(a)
    assert [heap.pop_min(), heap.pop_min(), heap.pop_min()] == [b, a, None]
    # The same after pop_min took a out: its old entries must stay dead.
    heap.push(a)
    assert heap.pop_min() is a
    heap.push(b)
    a.last_access = 4
    heap.push(a)
    heap.remove(a.id)
    a.last_access = 5
    heap.push(a)
    assert [heap.pop_min(), heap.pop_min(), heap.pop_min()] == [b, a, None]

"""Core never exceeds its limit, a rejected edit changes nothing, and a fact larger
than all of core goes to archival rather than being lost.

The property test drives random operation sequences (new facts, re-assertions
in other spellings, oversized facts, replaces, interactions, queries and
multi-fact interaction blocks) through every eviction policy in both units,
and after each operation recomputes core's size from scratch and compares the
in-memory core with the store's facts, on every backend.
"""

from __future__ import annotations

from typing import Any

import pytest
from backends import Backend
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from memory_helpers import (
    check_archival_consistent,
    check_core_invariants,
    token_count,
)

from tiermem.memory.errors import InvalidInputError, MemoryLimitError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.tiers.policies import POLICY_NAMES

VOCAB = (
    "alpha", "beta", "gamma", "delta", "peanuts", "kubernetes", "pod", "region", "billing",
    "invoice", "deploy", "rollback", "latency", "cache", "queue", "oncall", "pager",
    "coffee", "berlin", "tokyo", "vegan", "sushi", "router", "switch"
)
DURABILITIES = ("durable", "short-lived")
TEMPLATES = (
    "I'm allergic to {a}.",
    "Right now the {a} is restarting.",
    "My name is {a} {b}.",
    "Currently the {a} queue is {b}.",
    "The production region is {a}.",
    "We always deploy {a} before {b}.",
    "Is the {a} up?",
)

words = st.lists(st.sampled_from(VOCAB), min_size=1, max_size=14)
durability = st.sampled_from(DURABILITIES)
op = st.one_of(
    st.tuples(st.just("add"), words, durability),
    st.tuples(st.just("readd"), st.integers(0, 50), st.integers(0, 3), durability),
    st.tuples(st.just("big")),
    st.tuples(st.just("replace"), st.integers(0, 50), words),
    st.tuples(st.just("retire"), st.integers(0, 50)),
    st.tuples(st.just("interact"), st.lists(
        st.tuples(st.sampled_from(TEMPLATES), st.sampled_from(VOCAB), st.sampled_from(VOCAB)),
        min_size=1, max_size=3)),
    st.tuples(st.just("query"), words),
    st.tuples(st.just("block"), st.lists(st.tuples(words, durability), min_size=1, max_size=4)),
)


def variant(text: str, how: int) -> str:
    """The same fact in another spelling that normalises identically."""
    return (text, f"  {text.upper()}  ", f"{text}.", f" {text.lower()} ")[how]


def _expect_rejection_leaves_state(m: HierarchicalMemory, before: dict[str, Any]) -> None:
    assert m.snapshot() == before


def _add(m: HierarchicalMemory, text: str, dur: str, seen: list[str]) -> None:
    ids_before = {f.id for f in m.facts()}
    core_before = m.core.ids()
    size = m.core.size_of_text(text.strip())
    fid = m.add_fact(text, dur)
    if size > m.core.limit and fid not in ids_before:
        # (A re-assertion may be larger than its core fact: another spelling tokenises
        # differently.)
        assert m.fact(fid).tier == "archival", "an oversized new fact entered core"
        assert sorted(m.core.ids()) == sorted(core_before)
    seen.append(text)


def _run(m: HierarchicalMemory, ops: list[tuple[Any, ...]]) -> None:
    seen: list[str] = []
    check_core_invariants(m)
    for o in ops:
        kind = o[0]
        if kind == "add":
            _add(m, " ".join(o[1]), o[2], seen)
        elif kind == "readd" and seen:
            _add(m, variant(seen[o[1] % len(seen)], o[2]), o[3], seen)
        elif kind == "big" and m.core.unit == "tokens":
            text = " ".join(VOCAB[i % len(VOCAB)] for i in range(m.core.limit + 3))
            assert token_count(text) > m.core.limit
            core_before = [f.to_dict() for f in m.core]
            fid = m.add_fact(text, "durable")
            assert m.fact(fid).tier == "archival"
            assert [f.to_dict() for f in m.core] == core_before
        elif kind in ("replace", "retire") and len(m.core):
            facts = list(m.core)
            target = facts[o[1] % len(facts)]
            new = " ".join(o[2]) if kind == "replace" else ""
            before = m.snapshot()
            try:
                m.replace_in_core(target.text, new)
            except (InvalidInputError, MemoryLimitError):
                _expect_rejection_leaves_state(m, before)
            else:
                if kind == "retire" or m.core.size_of_text(new.strip()) > m.core.limit:
                    assert target.id not in m.core
                    assert m.fact(target.id).tier == "archival"
        elif kind == "interact":
            text = " ".join(t.format(a=a, b=b) for t, a, b in o[1])
            m.process_interaction(text, "Noted.")
        elif kind == "query":
            m.query(" ".join(o[1]), k=5)
        elif kind == "block":
            with m.interaction():
                for ws, dur in o[1]:
                    m.add_fact(" ".join(ws), dur)
                    check_core_invariants(m)
        check_core_invariants(m)
    check_archival_consistent(m)
    evictions = sum(f.evictions for f in m.facts())
    event("evictions: " + ("none" if not evictions else "1-4" if evictions < 5 else "5+"))
    # Eviction is not deletion: every fact outside core, whether it left core or never
    # fitted, can be found in archival.
    for fact in m.facts():
        if fact.tier == "archival":
            result = m.archival_search(fact.text, k=1000)
            mine = [h for h in result.hits if h.fact_id == fact.id]
            assert mine
            if fact.evictions:
                assert mine[0].was_in_core and mine[0].evicted_at is not None


PROPERTY_SETTINGS = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.mark.parametrize("policy", POLICY_NAMES)
@PROPERTY_SETTINGS
@given(ops=st.lists(op, min_size=8, max_size=40), limit=st.integers(6, 40))
def test_core_limit_holds_in_tokens(
    backend: Backend, policy: str, ops: list[tuple[Any, ...]], limit: int
) -> None:
    with backend.memory(core_limit=limit, core_limit_unit="tokens", policy=policy) as m:
        _run(m, ops)


@pytest.mark.parametrize("policy", POLICY_NAMES)
@PROPERTY_SETTINGS
@given(ops=st.lists(op, min_size=8, max_size=40), limit=st.integers(1, 5))
def test_core_limit_holds_in_facts(
    backend: Backend, policy: str, ops: list[tuple[Any, ...]], limit: int
) -> None:
    with backend.memory(core_limit=limit, core_limit_unit="facts", policy=policy) as m:
        _run(m, ops)


def _table_counts(m: HierarchicalMemory) -> dict[str, int]:
    store = m.store
    return {"facts": len(store.facts.all()), "passages": store.passages.count(),
            "messages": store.messages.count(), "events": store.history.last_event_id(),
            "history": len(store.history.points())}


BIG = "The release checklist says " + "check one more thing, " * 10


def test_a_fact_larger_than_core_goes_to_archival_and_core_is_unchanged(
    backend: Backend,
) -> None:
    with backend.memory(core_limit=20) as m:
        m.add_fact("User is allergic to peanuts", "durable")
        m.process_interaction("Right now the pod is restarting.", "Watching it.")
        core_before, counts, since = [f.to_dict() for f in m.core], _table_counts(m), \
            m.last_event_id()
        size = token_count(BIG.strip())
        assert size > 20
        fid = m.add_fact(BIG, "durable")
        fact = m.fact(fid)
        assert fact is not None and fact.tier == "archival" and fact.evictions == 0
        assert [f.to_dict() for f in m.core] == core_before
        assert _table_counts(m)["facts"] == counts["facts"] + 1
        assert _table_counts(m)["passages"] == counts["passages"] + 1
        assert [(e["kind"], e["fact_id"], e["detail"]) for e in m.events_since(since)] == [
            ("oversize", fid, f"{size} tokens; core holds 20")]
        # Searchable, and marked as never having been in core.
        [hit] = [h for h in m.archival_search("release checklist").hits if h.fact_id == fid]
        assert hit.text == fact.text and hit.was_in_core is False and hit.evicted_at is None
        check_core_invariants(m)
        check_archival_consistent(m)


def test_a_fact_larger_than_core_inside_an_interaction_goes_to_archival(
    backend: Backend,
) -> None:
    with backend.memory(core_limit=20) as m:
        kept = m.add_fact("User is allergic to peanuts", "durable")
        with m.interaction():
            fid = m.add_fact(BIG)
            assert m.fact(fid).tier == "archival" and m.core.ids() == [kept]
        assert m.fact(fid).tier == "archival"  # committed with the interaction
        check_archival_consistent(m)


def test_a_fact_larger_than_core_stays_in_archival_when_used(backend: Backend) -> None:
    with backend.memory(core_limit=20, promote_hits=1, recent_promote_hits=1) as m:
        fid = m.add_fact(BIG)
        m.add_fact(BIG)  # stated again: a hit, but no room can ever be made for it
        m.query("release checklist")
        assert m.fact(fid).tier == "archival" and len(m.core) == 0


def test_replace_that_makes_a_fact_larger_than_core_moves_it_to_archival(
    backend: Backend,
) -> None:
    with backend.memory(core_limit=20) as m:
        kept = m.add_fact("User is allergic to peanuts", "durable")
        fid = m.add_fact("The release checklist is short", "durable")
        since = m.last_event_id()
        m.replace_in_core("is short", "says " + "check one more thing, " * 10)
        fact = m.fact(fid)
        assert fact is not None and fact.tier == "archival" and fact.evictions == 1
        assert fact.text.startswith("The release checklist says check one more thing")
        assert m.core.ids() == [kept]
        assert [e["kind"] for e in m.events_since(since)] == ["replace", "oversize"]
        [hit] = [h for h in m.archival_search("release checklist").hits if h.fact_id == fid]
        assert hit.text == fact.text
        assert hit.was_in_core is True and hit.evicted_at == fact.evicted_at
        # The edited text is the fact now: stating it again finds it, not a new fact.
        assert m.add_fact(fact.text) == fid
        check_core_invariants(m)
        check_archival_consistent(m)


def test_replace_that_cannot_fit_changes_nothing(backend: Backend) -> None:
    with backend.memory(core_limit=30) as m:
        m.add_fact("User is allergic to peanuts", "durable")
        m.add_fact("The production region is eu-west-1", "durable")
        m.add_fact("the pod restarts", "short-lived")
        before = m.snapshot()
        # Growing the short-lived fact would need a durable fact to leave.
        with pytest.raises(MemoryLimitError, match="protected"):
            m.replace_in_core("the pod restarts", "the pod restarts " + "again and " * 8)
        with pytest.raises(InvalidInputError, match="no core fact contains"):
            m.replace_in_core("not there at all", "x")
        assert m.snapshot() == before
        check_core_invariants(m)


def test_replace_that_grows_evicts_the_lowest_and_stays_within_the_limit(backend: Backend) -> None:
    with backend.memory(core_limit=3, core_limit_unit="facts") as m:
        m.add_fact("alpha fact", "durable")
        m.add_fact("beta fact", "durable")
        m.add_fact("gamma fact", "durable")
        m.replace_in_core("beta", "beta prime")
        check_core_invariants(m)
        assert [f.text for f in m.core] == ["alpha fact", "beta prime fact", "gamma fact"]
    with backend.memory(core_limit=12) as m:
        a = m.add_fact("alpha one", "durable")
        b = m.add_fact("beta two", "durable")
        c = m.add_fact("gamma three", "durable")
        m.add_fact("gamma three")  # c is now the most used
        m.replace_in_core("gamma three", "gamma three " + "four " * 8)
        check_core_invariants(m)
        assert c in m.core and a not in m.core
        assert m.fact(a).tier == "archival"
        # b goes too only if dropping a alone did not make room.
        grown = token_count(m.fact(c).text)
        if b not in m.core:
            assert token_count("beta two") + grown > 12


@pytest.mark.parametrize("unit,old_limit,new_limit", [("facts", 10, 4), ("tokens", 60, 25)])
def test_reopening_with_a_smaller_limit_evicts_just_enough(
    backend: Backend, unit: str, old_limit: int, new_limit: int
) -> None:
    home = backend.home()
    with home.open(core_limit=old_limit, core_limit_unit=unit) as m:
        for i in range(10):
            m.add_fact(f"fact {i} {VOCAB[i]}", "durable")
        check_core_invariants(m)
        kept_before = [f.id for f in m.core]
    with home.open(core_limit=new_limit, core_limit_unit=unit) as m:
        check_core_invariants(m)
        assert m.core.limit == new_limit
        # Just enough: the oldest (least recent) facts went, and one more would not fit.
        evicted = [i for i in kept_before if i not in m.core]
        assert evicted == kept_before[: len(evicted)]
        smallest_evicted = min(m.core.size(m.fact(i)) for i in evicted)
        assert m.core.used + smallest_evicted > new_limit
        for i in evicted:
            assert m.fact(i).tier == "archival"
            assert m.archival_search(m.fact(i).text).hits[0].fact_id == i


def test_core_limit_must_be_positive(backend: Backend) -> None:
    for bad in (0, -3, True, 2.5):
        with pytest.raises(ValueError):
            backend.memory(core_limit=bad)
    with pytest.raises(ValueError, match="core_limit_unit"):
        backend.memory(core_limit_unit="bytes")

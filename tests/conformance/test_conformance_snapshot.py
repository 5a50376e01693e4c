"""snapshot() and restore(): an exact, JSON-serialisable round trip."""

from __future__ import annotations

import json
from typing import Any

import pytest
from backends import Backend
from memory_helpers import (
    check_archival_consistent,
    check_core_invariants,
    turn_filing_a_passage,
)

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.errors import InvalidInputError
from tiermem.memory.hierarchy import HierarchicalMemory


def _workload(m: HierarchicalMemory) -> None:
    """Evictions, a promotion, re-assertions, tags, metadata, tool messages and an erasure."""
    m.add_fact("User is allergic to peanuts", "durable")
    for i in range(6):
        m.add_fact(f"the {('api', 'db', 'cache', 'queue', 'cdn', 'dns')[i]} is slow right now",
                   "short-lived")
    m.add_fact("User is allergic to peanuts")
    with m.interaction():
        m.add_fact("the api is slow right now")
        m.add_fact("the api is slow right now")
    m.add_fact("the api is slow right now")  # promoted back
    m.archival_insert("runbook: restart the billing worker", tags=["ops", "billing"],
                      metadata={"owner": "sre", "priority": 2}, created_at=1_714_000_000.25)
    m.process_interaction("I'm vegan. Right now the deploy is stuck.", "Noted both.")
    m.recall.append("tool", "Found 1 message", m.tick, tool_name="conversation_search",
                    tool_call_id="call_1")
    ids = m.process_interaction("My card number is 4111.", "I should not keep that.")
    m.recall.erase([m.store.messages.max_id() - 1], "card number")
    assert ids
    m.archival_search("billing")
    m.archival_search("nothing matches this zzzq")
    m.query("peanuts")


def _facts(m: HierarchicalMemory) -> list[dict[str, Any]]:
    return [f.to_dict() for f in m.facts()]


def _searches(m: HierarchicalMemory) -> list[Any]:
    out = []
    for q in ("peanuts", "slow api", "billing worker", "vegan deploy"):
        a, r = m.archival.search(q, k=20), m.recall.search(q, k=20)
        out.append(([(h.id, h.score, h.was_in_core, h.evicted_at) for h in a.hits], a.total,
                    [(h.id, h.score, h.role, h.turn) for h in r.hits], r.total))
    return out


@pytest.fixture
def original(backend: Backend) -> HierarchicalMemory:
    m = backend.memory(core_limit=4, core_limit_unit="facts", policy="freq_recency_durable",
                    tau=7.5, promote_hits=1, recent_promote_hits=2)
    _workload(m)
    yield m
    m.close()


def test_snapshot_is_json_and_round_trips_exactly(
    backend: Backend, original: HierarchicalMemory
) -> None:
    snap = original.snapshot()
    assert sum(f.evictions for f in original.facts()) >= 3
    assert sum(f.promotions for f in original.facts()) >= 1
    text = json.dumps(snap)
    restored = backend.restored(json.loads(text))
    try:
        assert _facts(restored) == _facts(original)
        assert [f.to_dict() for f in restored.core] == [f.to_dict() for f in original.core]
        for mine, theirs in zip(original.facts(), restored.facts(), strict=True):
            assert (mine.tier, mine.access_count, mine.last_access, mine.created_at,
                    mine.durability, mine.evicted_at) == (
                theirs.tier, theirs.access_count, theirs.last_access, theirs.created_at,
                theirs.durability, theirs.evicted_at)
        assert restored.tick == original.tick
        assert (restored.core.used, restored.core.limit, restored.core.unit) == (
            original.core.used, original.core.limit, original.core.unit)
        assert (restored.policy.name, restored.tau) == (original.policy.name, original.tau)
        assert len(restored.archival) == len(original.archival)
        assert len(restored.recall) == len(original.recall)
        assert len(restored.archival.vectors) == len(original.archival.vectors)
        assert restored.recall.vectors is not None and original.recall.vectors is not None
        assert len(restored.recall.vectors) == len(original.recall.vectors)
        assert restored.diagnostics() == original.diagnostics()
        assert restored.snapshot() == snap
        assert _searches(restored) == _searches(original)
        check_core_invariants(restored)
        check_archival_consistent(restored)
    finally:
        restored.close()


def test_restored_memory_evolves_like_the_original(
    backend: Backend, original: HierarchicalMemory
) -> None:
    restored = backend.restored(original.snapshot())
    try:
        for m in (original, restored):
            for i in range(5):
                m.add_fact(f"later fact {i}", "short-lived" if i % 2 else "durable")
            m.add_fact("User is allergic to peanuts")
        assert [(f.id, f.tier, f.access_count, f.evictions) for f in restored.facts()] == [
            (f.id, f.tier, f.access_count, f.evictions) for f in original.facts()]
    finally:
        restored.close()


def test_restore_without_vectors_re_embeds(backend: Backend, original: HierarchicalMemory) -> None:
    snap = original.snapshot(include_vectors=False)
    assert all(r["embedding"] is None for r in snap["tables"]["passages"])
    with backend.restored(snap, embedder=HashingEmbedder()) as restored:
        assert _searches(restored) == _searches(original)
        check_archival_consistent(restored)


def test_restore_into_a_home_survives_reopening(backend: Backend,
                                                original: HierarchicalMemory) -> None:
    snap = original.snapshot()
    home = backend.home()
    home.restore(snap).close()
    with home.open() as reopened:
        assert _facts(reopened) == _facts(original)
        assert reopened.snapshot() == snap
        assert (reopened.policy.name, reopened.core.limit, reopened.tau) == (
            "freq_recency_durable", 4, 7.5)


def test_restore_refuses_a_home_that_already_holds_a_memory(
    backend: Backend, original: HierarchicalMemory
) -> None:
    home = backend.home()
    with home.open() as m:
        m.add_fact("precious existing fact")
        before = m.snapshot()
    with pytest.raises(InvalidInputError, match="already holds a memory"):
        home.restore(original.snapshot())
    with home.open() as m:
        assert m.snapshot() == before


@pytest.mark.parametrize(("bad", "said"), [
    ({}, "not a tiermem snapshot"), ({"format": "other/1"}, "not a tiermem snapshot"),
    ([], "not a tiermem snapshot"),
    # A str may be a file's name or JSON text: the error says how to pass either.
    ("snapshot", "not a str: pass Path"),
])
def test_restore_refuses_what_is_not_a_snapshot(bad: Any, said: str) -> None:
    with pytest.raises(InvalidInputError, match=said):
        HierarchicalMemory.restore(bad)


def test_snapshot_of_an_empty_memory_round_trips(backend: Backend) -> None:
    with backend.memory() as m:
        snap = m.snapshot()
        json.dumps(snap)
        with backend.restored(snap) as r:
            assert r.snapshot() == snap
            assert len(r.core) == len(r.archival) == len(r.recall) == 0


def test_a_restored_passage_keeps_the_message_it_was_filed_from(backend: Backend) -> None:
    with backend.memory() as m:
        said, filed = turn_filing_a_passage(m, "my door code is 4417, note it",
                                            "User's door code is 4417")
        snap = m.snapshot()
    assert [(p["id"], p["source_message_id"]) for p in snap["tables"]["passages"]] == [
        (filed, said)]
    with backend.restored(json.loads(json.dumps(snap))) as restored:
        assert restored.snapshot() == snap
        assert restored.erase(messages=[said], reason="asked").passages == 1
        assert restored.archival_search("door code 4417").total == 0

"""Transactions leave memory as it was when they fail: an interaction, a savepoint inside
one, a failed write that a reopen must not see, a failing embedder; on every backend."""

from __future__ import annotations

from typing import Any

import pytest
from backends import Backend
from memory_helpers import check_archival_consistent, check_core_invariants

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory


class Boom(Exception):
    pass


def _state(m: HierarchicalMemory) -> tuple[Any, ...]:
    recall_vectors = len(m.recall.vectors) if m.recall.vectors is not None else None
    return (m.snapshot(), len(m.archival.vectors), recall_vectors,
            len(m.archival), len(m.recall), len(m.core), m.core.used, m.tick)


def test_a_failed_interaction_leaves_everything_as_it_was(backend: Backend) -> None:
    with backend.memory(core_limit=3, core_limit_unit="facts") as m:
        for i in range(3):
            m.add_fact(f"fact {i} about the tokyo office")
        m.archival_insert("a passage about billing")
        m.process_interaction("I'm allergic to peanuts.", "Noted.")
        before = _state(m)
        with pytest.raises(Boom), m.interaction():
            m.add_fact("a brand new fact", "durable")  # evicts
            m.add_fact("fact 1 about the tokyo office")  # re-assertion
            m.archival_insert("a passage that must vanish")
            m.process_interaction("Right now the pod is restarting.", "Checking.")
            assert len(m.archival) > before[3]
            raise Boom
        assert _state(m) == before
        check_core_invariants(m)
        check_archival_consistent(m)
        assert m.archival_search("vanish").total == 0
        # The memory keeps working after the rollback.
        m.add_fact("a brand new fact")
        assert m.tick == before[-1] + 1
        check_core_invariants(m)
        check_archival_consistent(m)


def test_a_failed_inner_interaction_rolls_back_only_itself(backend: Backend) -> None:
    with backend.memory(core_limit=3, core_limit_unit="facts") as m:
        m.add_fact("kept outer fact")
        with m.interaction():
            m.archival_insert("outer passage")
            inner_before = _state(m)
            with pytest.raises(Boom), m.interaction():
                m.archival_insert("inner passage")
                m.add_fact("inner fact")
                raise Boom
            assert _state(m) == inner_before
            m.add_fact("outer fact after")
        check_archival_consistent(m)
        check_core_invariants(m)
        texts = {r["text"] for r in m.store.export_rows("passages")}
        assert texts == {"outer passage"}
        assert {f.text for f in m.core} == {"kept outer fact", "outer fact after"}


def test_failed_write_is_not_visible_after_reopen(backend: Backend) -> None:
    path = backend.home()
    with path.open() as m:
        m.archival_insert("committed passage")
        with pytest.raises(Boom), m.interaction():
            m.archival_insert("rolled back passage")
            raise Boom
    with path.open() as m:
        assert [r["text"] for r in m.store.export_rows("passages")] == ["committed passage"]
        check_archival_consistent(m)


def test_an_embedder_failure_mid_insert_changes_nothing(backend: Backend) -> None:
    class Failing(HashingEmbedder):
        fail = False

        def embed_documents(self, texts: Any) -> Any:
            if self.fail:
                raise RuntimeError("model crashed")
            return super().embed_documents(texts)

    embedder = Failing()
    with backend.memory(embedder=embedder, core_limit=2, core_limit_unit="facts") as m:
        m.add_fact("one")
        m.add_fact("two")
        before = _state(m)
        embedder.fail = True
        with pytest.raises(RuntimeError):
            m.add_fact("three")  # its eviction needs an embedding
        with pytest.raises(RuntimeError):
            m.process_interaction("I'm allergic to peanuts.", "Noted.")
        embedder.fail = False
        assert _state(m) == before


def test_reopening_midway_evicts_exactly_as_staying_open(backend: Backend) -> None:
    def step(m: HierarchicalMemory, i: int) -> None:
        m.add_fact(f"fact {i % 9} about topic {i % 9}", "durable" if i % 4 else "short-lived")

    with backend.memory(core_limit=4, core_limit_unit="facts") as steady:
        for i in range(60):
            step(steady, i)
        expected = [(f.id, f.tier, f.access_count, f.last_access, f.evictions)
                    for f in steady.facts()]
    path = backend.home()
    for chunk in range(6):
        with path.open(core_limit=4, core_limit_unit="facts") as m:
            for i in range(chunk * 10, chunk * 10 + 10):
                step(m, i)
    with path.open() as m:
        assert [(f.id, f.tier, f.access_count, f.last_access, f.evictions)
                for f in m.facts()] == expected
        check_core_invariants(m)


def test_inner_then_outer_failure_restores_the_start(backend: Backend) -> None:
    with backend.memory(core_limit=2, core_limit_unit="facts") as m:
        m.add_fact("first fact")
        m.archival_insert("first passage")
        before = _state(m)
        with pytest.raises(Boom), m.interaction():
            m.archival_insert("outer passage")
            with pytest.raises(Boom), m.interaction():
                m.archival_insert("inner passage")
                raise Boom
            m.add_fact("second fact")
            m.add_fact("third fact")  # evicts
            raise Boom
        assert _state(m) == before
        check_archival_consistent(m)

"""The memory engine on the real offline default embedder (MiniLM, int8 ONNX)."""

from __future__ import annotations

from pathlib import Path

import pytest
from memory_helpers import check_archival_consistent, check_core_invariants

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.errors import EmbedderMismatchError
from tiermem.memory.hierarchy import HierarchicalMemory

pytestmark = pytest.mark.slow


def test_an_evicted_fact_is_found_by_meaning(tmp_path: Path) -> None:
    with HierarchicalMemory(tmp_path / "agent", core_limit=2, core_limit_unit="facts") as m:
        assert m.embedder.id.startswith("all-MiniLM")
        m.process_interaction("I'm allergic to peanuts.", "Noted.")
        m.add_fact("The production region is eu-west-1", "durable")
        m.add_fact("The on-call engineer this week is Priya", "durable")
        fact = next(f for f in m.facts() if f.text == "User is allergic to peanuts")
        assert fact.tier == "archival"
        # No word in common with the fact: only the dense half of search can find it.
        hits = m.archival_search("nut intolerance", k=3).hits
        assert hits and hits[0].fact_id == fact.id
        assert hits[0].was_in_core and hits[0].evicted_at is not None
        recalled = m.recall_search("food intolerance", k=3).hits
        assert recalled and recalled[0].text == "I'm allergic to peanuts."
        check_core_invariants(m)
        check_archival_consistent(m)


def test_reopen_rebuild_and_embedder_mismatch(tmp_path: Path) -> None:
    path = tmp_path / "agent"
    topics = ["the billing worker crashed at night", "peanut allergy on file",
              "kubernetes pods restart after deploys", "the office moved to Lisbon"]
    with HierarchicalMemory(path) as m:
        for i, topic in enumerate(topics * 5):
            m.archival_insert(f"{topic} (note {i})")
        reference = [(h.id, round(h.score, 6)) for h in
                     m.archival_search("payments service failure", k=8).hits]
        model_id = m.embedder.id
    (path / "archival.faiss").unlink()
    with HierarchicalMemory(path) as m:
        assert m.archival.vectors.rebuilt_on_open
        assert [(h.id, round(h.score, 6)) for h in
                m.archival_search("payments service failure", k=8).hits] == reference
    with pytest.raises(EmbedderMismatchError) as info:
        HierarchicalMemory(path, embedder=HashingEmbedder())
    assert model_id in str(info.value) and "hashing-uni-bi-256" in str(info.value)

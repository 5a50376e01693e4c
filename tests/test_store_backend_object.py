"""A memory can be built on an open storage backend (``store=``), not only from a path,
and a snapshot restored into one; this is how a second backend plugs in."""

from __future__ import annotations

from pathlib import Path

import pytest
from memory_helpers import make_memory

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.errors import InvalidInputError, SnapshotError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.sqlite import SQLiteStore


def test_a_memory_on_a_store_object_is_the_memory_at_its_path(tmp_path: Path) -> None:
    home = tmp_path / "agent"
    with HierarchicalMemory(store=SQLiteStore(home), embedder=HashingEmbedder(),
                            core_limit=2, core_limit_unit="facts") as m:
        m.add_fact("the staging cluster is amber", "durable")
        m.archival_insert("runbook: restart the billing worker")
        snap = m.snapshot()
    with make_memory(home) as reopened:  # the writer lock was released on close
        assert reopened.snapshot() == snap


def test_a_store_takes_its_home_as_text_too(tmp_path: Path) -> None:
    home = str(tmp_path / "agent")
    with HierarchicalMemory(store=SQLiteStore(home, vector_index="exact"),
                            embedder=HashingEmbedder()) as m:
        m.add_fact("the staging cluster is amber", "durable")
    with make_memory(Path(home)) as reopened:
        assert [f.text for f in reopened.core] == ["the staging cluster is amber"]


def test_a_path_and_a_store_together_are_refused(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "agent")
    try:
        with pytest.raises(InvalidInputError, match="not both"):
            HierarchicalMemory(tmp_path / "other", store=store)
    finally:
        store.close()


def test_restore_into_a_store_object_and_replace_what_it_held(tmp_path: Path) -> None:
    with make_memory(core_limit=3, core_limit_unit="facts") as source:
        for i in range(5):
            source.add_fact(f"fact {i} about the tokyo office", "durable")
        source.process_interaction("I'm allergic to peanuts.", "Noted.")
        snap = source.snapshot()
    home = tmp_path / "agent"
    with make_memory(home) as busy:
        busy.add_fact("a fact that the restore replaces")
        busy.process_interaction("a message that goes too", "so it does")
        kept = busy.snapshot()
    with pytest.raises(SnapshotError, match="already holds a memory"):
        HierarchicalMemory.restore(snap, store=SQLiteStore(home), embedder=HashingEmbedder())
    with make_memory(home) as unchanged:
        assert unchanged.snapshot() == kept
    with HierarchicalMemory.restore(snap, store=SQLiteStore(home), embedder=HashingEmbedder(),
                                    replace=True) as restored:
        assert restored.snapshot() == snap


def test_a_restore_whose_memory_fails_to_open_closes_the_store_it_wrote(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The restore committed, then opening the memory was stopped (a Ctrl-C): the store it
    restored into is closed, so its writer lock is free at once, not when it is collected."""
    with make_memory(tmp_path / "old") as old:
        old.add_fact("the staging cluster is amber", "durable")
        snap = old.snapshot()
    store = SQLiteStore(tmp_path / "agent")

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    with monkeypatch.context() as patched, pytest.raises(KeyboardInterrupt):
        patched.setattr(HierarchicalMemory, "__init__", interrupted)
        HierarchicalMemory.restore(snap, store=store, embedder=HashingEmbedder())
    assert store.closed
    with make_memory(tmp_path / "agent") as reopened:  # the writer lock is free
        assert [f.text for f in reopened.core] == ["the staging cluster is amber"]


def test_a_store_refuses_read_only_given_as_text(tmp_path: Path) -> None:
    home = tmp_path / "agent"
    SQLiteStore(home).close()
    # Before: the string "false" is true, so the store opened read-only.
    with pytest.raises(InvalidInputError, match="read_only must be True or False, got 'false'"):
        SQLiteStore(home, read_only="false")  # type: ignore[arg-type]

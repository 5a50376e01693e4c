"""Recall at scale: bulk appends, and words found in most messages."""

from __future__ import annotations

from pathlib import Path

import pytest
from memory_helpers import make_memory

from tiermem.memory.search.fusion import FusionWeights
from tiermem.memory.tiers.recall import NewMessage

WORDS = ("apple", "banana", "cherry", "damson", "elder", "fig", "grape", "hazel")


def _batch(n: int, start: int = 0) -> list[NewMessage]:
    # "note" is in every message; each fruit in one message of eight.
    return [NewMessage("user" if i % 2 else "assistant",
                       f"note {WORDS[i % len(WORDS)]} number {i}", turn=i // 2)
            for i in range(start, start + n)]


def _fts_rows(memory: object, word: str) -> list[int]:
    rows = memory.store.execute(  # type: ignore[attr-defined]
        "SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rowid", (word,))
    return [r[0] for r in rows]


def test_bulk_append_indexes_exactly_like_row_by_row(tmp_path: Path) -> None:
    rows = make_memory(tmp_path / "rows", recall_dense=False)
    bulk = make_memory(tmp_path / "bulk", recall_dense=False)
    with rows, bulk:
        rows.recall.append_many(_batch(40))
        ids = bulk.recall.append_many(_batch(40), bulk=True)
        assert ids == list(range(ids[0], ids[0] + 40))
        for word in ("note", "banana", "number", "17"):
            assert _fts_rows(rows, word) == _fts_rows(bulk, word)
        # A later append on its own is indexed too.
        bulk.recall.append("user", "a late kiwi", turn=99)
        assert len(_fts_rows(bulk, "kiwi")) == 1
        bulk.store.execute("INSERT INTO messages_fts (messages_fts) VALUES ('integrity-check')")
        # Five hold the word, and the five after them hold it as context.
        assert bulk.recall.search("banana", k=3).total == 10


def test_bulk_append_rolls_back_whole(tmp_path: Path) -> None:
    with make_memory(tmp_path / "m", recall_dense=False) as memory:
        memory.recall.append_many(_batch(8))
        with pytest.raises(RuntimeError), memory.store.transaction():
            memory.recall.append_many(_batch(8, start=8), bulk=True)
            raise RuntimeError("crash mid-turn")
        assert len(memory.recall) == 8
        assert len(_fts_rows(memory, "note")) == 8
        memory.recall.append("user", "note after rollback", turn=9)
        assert len(_fts_rows(memory, "note")) == 9


def test_a_word_in_most_messages_does_not_make_a_match_next_to_rarer_words() -> None:
    with make_memory(recall_dense=False) as memory:
        memory.recall.append_many(_batch(80), bulk=True)
        alone = memory.recall.search("note", k=5)
        mixed = memory.recall.search("note banana", k=20)
        only_banana = memory.recall.search("banana", k=20)
    assert alone.total == 80  # alone it still matches: nothing else to go by
    assert mixed.total == only_banana.total == 20  # 10 hold it, 10 more as context
    assert [h.id for h in mixed.hits] == [h.id for h in only_banana.hits]


def test_pruning_follows_prune_common() -> None:
    with make_memory(recall_dense=False,
                     fusion=FusionWeights(prune_common=False)) as memory:
        memory.recall.append_many(_batch(80), bulk=True)
        assert memory.recall.search("note banana", k=5).total == 80


def test_archival_drops_a_word_found_in_most_passages_too() -> None:
    with make_memory(recall_dense=False, fusion=FusionWeights(dense=0.0)) as memory:
        for i in range(60):
            memory.archival_insert(f"ticket {WORDS[i % len(WORDS)]} {i}")
        assert memory.archival_search("ticket apple", k=5).total == 8
        assert memory.archival_search("ticket", k=5).total == 60

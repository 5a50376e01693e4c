"""Recall's words in memory (memory/store/sqlite/lexical_cache.py) stay FTS5's bm25() and
common-word tests stay exact when another process writes the same agent file between our
statements: it appends, erases, clears and imports through its own connection."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.store.records import RowFilter
from tiermem.memory.store.sqlite import lexical_window
from tiermem.memory.store.sqlite.lexical import BM25List, fts_match
from tiermem.memory.tiers.recall import NewMessage

NO_FILTER = RowFilter()


@pytest.fixture(autouse=True)
def few_rows_make_a_word_frequent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lexical_window, "HELD_MIN_HITS", 10)
    monkeypatch.setattr(lexical_window, "HELD_MIN_SHARE", 0.0)


def _fts5(m: HierarchicalMemory, words: list[str], window: int) -> dict[int, float]:
    full = BM25List(m.store, "messages", fts_match(words), NO_FILTER, window)
    try:
        return full.everything()
    finally:
        full.close()


def test_a_read_only_store_does_not_count_words_it_cannot_hold(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with HierarchicalMemory(tmp_path, embedder=HashingEmbedder(), recall_dense=False) as m:
        m.recall.append_many([NewMessage("user", "apple pear", i) for i in range(40)])
    counted: list[str] = []
    frequent = lexical_window._frequent

    def counting(*args: Any) -> bool:
        counted.append(args[3])
        return frequent(*args)

    monkeypatch.setattr(lexical_window, "_frequent", counting)
    with HierarchicalMemory(tmp_path, embedder=HashingEmbedder(), recall_dense=False,
                            read_only=True) as m:
        lexical = m.store.lexical("messages")
        for _ in range(3):
            ranking = lexical.rank(["apple", "pear"], NO_FILTER, 20)
            assert isinstance(ranking, BM25List)
            assert ranking.everything() == _fts5(m, ["apple", "pear"], 20)
        assert counted == []

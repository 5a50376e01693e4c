"""Recall's words in memory (memory/store/sqlite/lexical_cache.py) stay FTS5's bm25() and
common-word tests stay exact when another process writes the same agent file between our
statements: it appends, erases, clears and imports through its own connection."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.store.records import RowFilter
from tiermem.memory.store.sqlite import DB_FILE, lexical_window
from tiermem.memory.store.sqlite.dump import clear_tables, export_rows, import_rows
from tiermem.memory.store.sqlite.history import SQLiteSettings
from tiermem.memory.store.sqlite.lexical import BM25List, fts_match
from tiermem.memory.store.sqlite.schema import register_functions
from tiermem.memory.tiers.recall import NewMessage

NO_FILTER = RowFilter()


@pytest.fixture(autouse=True)
def few_rows_make_a_word_frequent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lexical_window, "HELD_MIN_HITS", 10)
    monkeypatch.setattr(lexical_window, "HELD_MIN_SHARE", 0.0)


class OtherProcess:
    """A second connection to the agent file, as another process holds it; it writes
    through the store's own clear and import (they take anything with ``execute`` and
    ``settings``)."""

    def __init__(self, home: Path) -> None:
        self.conn = sqlite3.connect(home / DB_FILE, isolation_level=None)
        self.conn.row_factory = sqlite3.Row
        register_functions(self.conn)  # the index's triggers call them
        self.settings = SQLiteSettings(self)  # type: ignore[arg-type]

    def execute(self, sql: str, params: Any = ()) -> sqlite3.Cursor:
        return self.conn.execute(sql, params)

    def executemany(self, sql: str, rows: Any) -> sqlite3.Cursor:
        return self.conn.executemany(sql, rows)

    def write(self, change: Callable[[OtherProcess], None]) -> None:
        self.conn.execute("BEGIN IMMEDIATE")
        change(self)
        self.conn.execute("COMMIT")

    def append(self, *texts: str) -> None:
        def insert(other: OtherProcess) -> None:
            for text in texts:
                other.execute("INSERT INTO messages (turn, role, content, created_at)"
                              " VALUES (900, 'user', ?, 0)", (text,))
        self.write(insert)

    def erase(self, message: int) -> None:
        def delete(other: OtherProcess) -> None:
            other.execute("INSERT INTO erasures (message_id, reason, erased_at)"
                          " VALUES (?, 'asked', 0)", (message,))
            other.execute("DELETE FROM messages WHERE id = ?", (message,))
        self.write(delete)


@pytest.fixture
def home(tmp_path: Path) -> Iterator[tuple[HierarchicalMemory, OtherProcess]]:
    with HierarchicalMemory(tmp_path, embedder=HashingEmbedder(), recall_dense=False) as m:
        other = OtherProcess(tmp_path)
        yield m, other
        other.conn.close()


def _fts5(m: HierarchicalMemory, words: list[str], window: int) -> dict[int, float]:
    full = BM25List(m.store, "messages", fts_match(words), NO_FILTER, window)
    try:
        return full.everything()
    finally:
        full.close()


def test_rows_another_process_clears_and_imports_are_read_again(
        home: tuple[HierarchicalMemory, OtherProcess]) -> None:
    m, other = home
    m.recall.append_many([NewMessage("user", "apple kiwi" if i % 2 else "apple pear", i)
                          for i in range(40)])
    lexical = m.store.lexical("messages")
    words = ["apple", "pear"]
    assert lexical.rank(words, NO_FILTER, 30).everything() == _fts5(m, words, 30)
    # A restore elsewhere: the same ids, lengths and erasures (none), other words.
    rows = list(export_rows(m.store, "messages"))
    for row in rows:
        row["content"] = row["content"].replace("apple", "grape")

    def restore(store: OtherProcess) -> None:
        clear_tables(store)  # type: ignore[arg-type]
        import_rows(store, "messages", rows)  # type: ignore[arg-type]

    other.write(restore)
    assert m.store.execute("SELECT count(*) FROM erasures").fetchone()[0] == 0
    ranking = lexical.rank(words, NO_FILTER, 30)
    assert ranking.everything() == _fts5(m, words, 30)
    assert all(h.id not in (r["id"] for r in rows if "apple" in r["content"])
               for h in m.recall.search("apple", k=5).hits)


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

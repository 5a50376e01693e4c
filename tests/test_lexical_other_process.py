"""Recall's and archival's words in memory (memory/store/sqlite/lexical_cache.py) stay FTS5's
bm25() and common-word tests stay exact when another process writes the same agent file
between our statements: it appends, erases, edits, clears and imports through its own
connection. So does archival's bounded ranking (memory/store/sqlite/lexical_bound.py),
whose later queries run when a search asks deeper, and recall's window when FTS5 scores it
(a read-only store, or rarer words), from the state its newest matches were found in."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.store.records import DumpTable, RowFilter
from tiermem.memory.store.sqlite import DB_FILE, lexical_window
from tiermem.memory.store.sqlite.dump import clear_tables, export_rows, import_rows
from tiermem.memory.store.sqlite.forgetting import listed_ids
from tiermem.memory.store.sqlite.history import SQLiteSettings
from tiermem.memory.store.sqlite.lexical import BM25List, SQLiteLexical, fts_match
from tiermem.memory.store.sqlite.lexical_bound import BoundedBM25
from tiermem.memory.store.sqlite.lexical_cache import CachedBM25, TermCache
from tiermem.memory.store.sqlite.lexical_window import WindowBM25
from tiermem.memory.store.sqlite.messages import erase_listed
from tiermem.memory.store.sqlite.schema import register_functions
from tiermem.memory.store.sqlite.schema_search import APPENDED_INTO_INDEX
from tiermem.memory.tiers.archival import NewPassage
from tiermem.memory.tiers.recall import NewMessage

NO_FILTER = RowFilter()


@pytest.fixture(autouse=True)
def few_rows_make_a_word_frequent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lexical_window, "HELD_MIN_HITS", 10)
    monkeypatch.setattr(lexical_window, "HELD_MIN_SHARE", 0.0)


class OtherProcess:
    """A second connection to the agent file, as another process holds it; it writes
    through the store's own clear, import and erasure (they take anything with ``execute``
    and ``settings``)."""

    def __init__(self, home: Path) -> None:
        self.database = home / DB_FILE  # named in a failed read's error, as the store's is
        self.home = home  # named in a counter's refusal, as the store's is
        self.conn = sqlite3.connect(self.database, isolation_level=None)
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
        for appended in APPENDED_INTO_INDEX.values():  # as the store does before it commits
            self.conn.execute(appended)
        self.conn.execute("COMMIT")

    def rows_appended(self, table: str) -> None:
        """What an import says to the store; ``write`` indexes them before it commits."""

    def append(self, *texts: str) -> None:
        def insert(other: OtherProcess) -> None:
            for text in texts:
                other.execute("INSERT INTO messages (turn, role, content, created_at)"
                              " VALUES (900, 'user', ?, 0)", (text,))
        self.write(insert)

    def restore(self, table: DumpTable, column: str, old: str, new: str) -> None:
        """A restore elsewhere: ``table`` cleared and imported with the same ids and
        lengths, ``old`` replaced by ``new`` in its ``column``."""
        rows = list(export_rows(self, table))  # type: ignore[arg-type]
        for row in rows:
            row[column] = row[column].replace(old, new)

        def restore(other: OtherProcess) -> None:
            clear_tables(other)  # type: ignore[arg-type]
            import_rows(other, table, rows)  # type: ignore[arg-type]

        self.write(restore)

    def erase(self, message: int) -> None:
        def delete(other: OtherProcess) -> None:
            erase_listed(other, listed_ids([message]), "asked", 0)  # type: ignore[arg-type]
        self.write(delete)


@pytest.fixture
def home(tmp_path: Path) -> Iterator[tuple[HierarchicalMemory, OtherProcess]]:
    with HierarchicalMemory(tmp_path, embedder=HashingEmbedder(), recall_dense=False) as m:
        other = OtherProcess(tmp_path)
        yield m, other
        other.conn.close()


def _before(m: HierarchicalMemory, monkeypatch: pytest.MonkeyPatch, marker: str,
            write: Callable[[], None]) -> list[int]:
    """Make ``write`` happen once, just before our next statement containing ``marker``."""
    execute, done = m.store.execute, []

    def interleaved(sql: str, params: Any = ()) -> sqlite3.Cursor:
        if marker in sql and not done:
            done.append(1)
            write()
        return execute(sql, params)

    monkeypatch.setattr(m.store, "execute", interleaved)
    return done


def _fts5(m: HierarchicalMemory, words: list[str], window: int) -> dict[int, float]:
    full = BM25List(m.store, "messages", fts_match(words), NO_FILTER, window)
    try:
        return full.everything()
    finally:
        full.close()


def test_a_row_another_process_appends_during_a_common_word_test_is_counted_once(
        home: tuple[HierarchicalMemory, OtherProcess],
        monkeypatch: pytest.MonkeyPatch) -> None:
    m, other = home
    # apple in 51 of 100 messages: more than half.
    m.recall.append_many([NewMessage("user", "apple" if i < 51 else f"u{i}", i)
                          for i in range(100)])
    lexical = m.store.lexical("messages")
    assert lexical.common_terms(["apple"], 100) == {"apple"}
    m.recall.append_many([NewMessage("user", "v0", 100)])
    # Ten messages with apple come from elsewhere while the new row is being counted.
    done = _before(m, monkeypatch, "rowid > ?", lambda: other.append(*["apple"] * 10))
    assert lexical.common_terms(["apple"], 101) == {"apple"}
    assert done
    monkeypatch.undo()
    m.recall.append_many([NewMessage("user", f"v{i}", 200 + i) for i in range(19)])
    # apple is in 63 of 130 rows now (with the rows it is the context of): not more than
    # half, though counting the ten twice would make it 73.
    assert len(lexical.scores(["apple"])) == 63 and m.store.messages.count() == 130
    assert lexical.common_terms(["apple"], 130) == set()


def test_a_row_appended_between_the_cache_s_reads_is_not_scored_half_read(
        home: tuple[HierarchicalMemory, OtherProcess],
        monkeypatch: pytest.MonkeyPatch) -> None:
    m, other = home
    m.recall.append_many([NewMessage("user", "apple pear" if i % 7 == 0 else "apple", i)
                          for i in range(100)])
    lexical = m.store.lexical("messages")
    first = lexical.rank(["apple"], NO_FILTER)
    assert isinstance(first, CachedBM25)  # the row lengths are in memory now
    expected = lexical.scores(["pear"])
    # Another process appends a message with pear just before pear's rows are read.
    done = _before(m, monkeypatch, "group_concat(doc)", lambda: other.append("pear pear"))
    ranking = lexical.rank(["pear"], NO_FILTER)
    assert done and isinstance(ranking, CachedBM25)
    assert ranking.everything() == expected  # bm25() of the state before that append
    monkeypatch.undo()
    after = lexical.rank(["pear"], NO_FILTER)
    assert after.everything() == lexical.scores(["pear"]) != expected


def test_a_window_read_while_another_process_appends_is_bm25_of_one_state(
        home: tuple[HierarchicalMemory, OtherProcess],
        monkeypatch: pytest.MonkeyPatch) -> None:
    m, other = home
    m.recall.append_many([NewMessage("user", "apple pear" if i % 3 else "apple", i)
                          for i in range(60)])
    lexical = m.store.lexical("messages")
    expected = _fts5(m, ["pear", "apple"], 100)
    done = _before(m, monkeypatch, "group_concat(doc)",
                   lambda: other.append(*["pear kiwi"] * 5))
    ranking = lexical.rank(["pear", "apple"], NO_FILTER, 100)
    assert done and isinstance(ranking, WindowBM25)
    assert ranking.everything() == expected


@pytest.mark.parametrize("change", ["append", "erase", "erase newest"])
def test_after_another_process_writes_the_next_window_is_fts5s_ranking(
        home: tuple[HierarchicalMemory, OtherProcess], change: str) -> None:
    m, other = home
    m.recall.append_many([NewMessage("user", "apple pear" if i % 3 else "apple w1", i)
                          for i in range(80)])
    lexical, cache = m.store.lexical("messages"), m.store.term_cache("messages")
    words = ["apple", "pear", "w1"]
    before = lexical.rank(words, NO_FILTER, 50).everything()
    assert before == _fts5(m, words, 50)
    read = cache.rows_read
    if change == "append":
        other.append("apple apple w1", "pear", "kiwi")
    else:
        other.erase(80 if change == "erase newest" else 75)
        if change == "erase newest":
            other.append("w1 w1")  # takes the erased message's id
    ranking = lexical.rank(words, NO_FILTER, 50)
    assert isinstance(ranking, WindowBM25)
    after = ranking.everything()
    assert after == _fts5(m, words, 50) and after != before
    if change == "append":
        assert cache.rows_read == read and cache.rows_appended == 3  # added, not read again
    else:
        assert cache.rows_read > read


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
    other.restore("messages", "content", "apple", "grape")
    assert m.store.execute("SELECT count(*) FROM erasures").fetchone()[0] == 0
    ranking = lexical.rank(words, NO_FILTER, 30)
    assert ranking.everything() == _fts5(m, words, 30)
    assert all(h.id not in (r["id"] for r in rows if "apple" in r["content"])
               for h in m.recall.search("apple", k=5).hits)


@pytest.mark.parametrize("change", ["append", "edit", "forget", "restore"])
def test_after_another_process_writes_archival_its_words_in_memory_are_fts5s(
        home: tuple[HierarchicalMemory, OtherProcess], change: str) -> None:
    m, other = home
    m.archival.insert_many([NewPassage(text="apple pear" if i % 3 else "apple w1")
                            for i in range(60)])
    lexical, cache = m.store.lexical("passages"), m.store.term_cache("passages")
    words = ["apple", "pear"]

    def fts5() -> dict[int, float]:
        full = BM25List(m.store, "passages", fts_match(words), NO_FILTER)
        try:
            return full.everything()
        finally:
            full.close()

    before = lexical.rank(words, NO_FILTER)
    assert isinstance(before, CachedBM25) and before.everything() == fts5()
    read = cache.rows_read
    if change == "append":
        other.write(lambda o: o.execute("INSERT INTO passages (text, created_at)"
                                        " VALUES ('pear pear', 0)"))
    elif change == "edit":  # as many words as before: the index's sums do not change
        other.write(lambda o: o.execute("UPDATE passages SET text = 'apple w1' WHERE id = 2"))
    elif change == "forget":
        other.write(lambda o: o.execute("UPDATE passages SET forgotten_at = 1 WHERE id = 2"))
    else:  # the same ids, lengths and sums, other words
        other.restore("passages", "text", "pear", "kiwi")
    after = lexical.rank(words, NO_FILTER)
    assert isinstance(after, CachedBM25)
    assert after.everything() == fts5() != before.everything()
    if change == "append":
        assert cache.rows_read == read and cache.rows_appended == 1  # added, not read again
    else:
        assert cache.rows_read > read


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


#: Three passages with the rare word, one to erase among them; many with the common one,
#: though fewer than half (a search would leave it out of its query).
_PASSAGES = (["kiwi secret"] + ["kiwi apple pear plum"] * 2
             + ["apple pear " + "x " * (i % 5) for i in range(120)]
             + [f"u{i}" for i in range(150)])


def _archival(m: HierarchicalMemory) -> None:
    m.archival.insert_many([NewPassage(text=t, tags=["t"]) for t in _PASSAGES])


def _elsewhere(other: OtherProcess, change: str) -> None:
    """Another process erases the passage with the rare word's best score, or files more
    passages (which changes every word's idf and the average length)."""
    if change == "erase":
        other.write(lambda o: o.execute("DELETE FROM passages WHERE id = 1"))
    else:
        other.write(lambda o: o.executemany(
            "INSERT INTO passages (text, created_at) VALUES (?, 0)",
            [("kiwi zzz qqq",)] + [(f"v{i} w{i}",) for i in range(30)]))


@pytest.mark.parametrize("change", ["erase", "append"])
@pytest.mark.parametrize("how", ["bounded", "cached"])
def test_a_ranking_asked_deeper_after_another_process_writes_is_one_state_s_bm25(
        home: tuple[HierarchicalMemory, OtherProcess], how: str, change: str) -> None:
    m, other = home
    _archival(m)
    # Tags are a condition on the rows: FTS5 answers, bounded; without, the words in memory.
    filt = RowFilter(tags=("t",)) if how == "bounded" else NO_FILTER
    ranking = m.store.lexical("passages").rank(["apple", "kiwi"], filt)
    try:
        assert isinstance(ranking, BoundedBM25 if how == "bounded" else CachedBM25)
        order = getattr(ranking, "terms", ["apple", "kiwi"])
        full = BM25List(m.store, "passages", fts_match(order), filt)
        expected = full.everything()  # the ranking's state, read whole
        full.close()
        assert list(ranking.top(3)) == [1, 2, 3]
        _elsewhere(other, change)
        # Deeper than the rows above the bound: the rest is read now, from the same state.
        assert ranking.top(20) == dict(list(expected.items())[:20])
        rest = [i for i in expected if i not in ranking.found][:5]
        assert ranking.scores_of(rest) == {i: expected[i] for i in rest}
        assert ranking.total() == len(expected)
        assert ranking.everything() == expected
    finally:
        ranking.close()
    # Closed, the ranking holds no state: the next one reads the other process's changes.
    after = m.store.lexical("passages").rank(["apple", "kiwi"], filt)
    assert after.everything() != expected
    after.close()


@pytest.mark.parametrize("k", [2, 8])
@pytest.mark.parametrize("tags", [["t"], None])
def test_a_passage_erased_elsewhere_during_a_search_is_not_shown(
        home: tuple[HierarchicalMemory, OtherProcess], monkeypatch: pytest.MonkeyPatch,
        tags: list[str] | None, k: int) -> None:
    m, other = home
    _archival(m)
    before = m.archival.search("apple kiwi", k=k, tags=tags)
    assert before.hits[0].id == 1 and "secret" in before.hits[0].text
    rank, done = SQLiteLexical.rank, []

    def erased_once_open(lexical: SQLiteLexical, *args: Any, **kwargs: Any) -> Any:
        ranking = rank(lexical, *args, **kwargs)
        if not done:  # erased after the first queries, before the ranking is read deeper
            done.append(ranking)
            _elsewhere(other, "erase")
            _elsewhere(other, "append")
        return ranking

    monkeypatch.setattr(SQLiteLexical, "rank", erased_once_open)
    if tags is None:
        monkeypatch.setattr(TermCache, "enabled", False)  # bounded without filters too
    found = m.archival.search("apple kiwi", k=k, tags=tags)
    assert isinstance(done[0], BoundedBM25)
    # Ranked and counted as the passages stood when the search began, every score of that
    # state; the erased passage, read afterwards, has no row to show, and its text is not
    # shown (the page is a row short).
    assert [(h.id, h.score, h.relevance) for h in found.hits] == [
        (h.id, h.score, h.relevance) for h in before.hits[1:]]
    assert found.total == before.total
    assert all("secret" not in h.text for h in found.hits)
    assert m.store.conn.in_transaction is False  # the read ended with the search


@pytest.mark.parametrize("window", [30, 100])  # fewer than the matches, and more
@pytest.mark.parametrize("change", ["append", "erase"])
@pytest.mark.parametrize("reader", [True, False])
def test_a_window_fts5_scores_while_another_process_writes_is_one_state_s_bm25(
        home: tuple[HierarchicalMemory, OtherProcess], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, reader: bool, change: str, window: int) -> None:
    m, other = home
    m.recall.append_many([NewMessage("user", "apple pear" if i % 3 else "apple w1", i)
                          for i in range(60)])
    if not reader:  # words too rare to hold: FTS5 scores the window
        monkeypatch.setattr(lexical_window, "HELD_MIN_HITS", 10**9)
    words = ["pear", "w1"]
    # A read-only store holds no words in memory, whatever their share.
    with (HierarchicalMemory(tmp_path, embedder=HashingEmbedder(), recall_dense=False,
                             read_only=True) if reader else contextlib.nullcontext(m)) as r:
        expected = _fts5(r, words, window)
        # Another process writes after the newest matches are found, before BM25 runs: rows
        # past the newest it found, or one of them erased.
        done = _before(r, monkeypatch, "ORDER BY bm25(", (
            (lambda: other.append(*["pear kiwi"] * 5)) if change == "append"
            else (lambda: other.erase(59))))
        ranking = r.store.lexical("messages").rank(words, NO_FILTER, window)
        try:
            assert done and isinstance(ranking, BM25List)
            assert ranking.top(5) == dict(list(expected.items())[:5])
            assert ranking.everything() == expected
            assert ranking.total() == len(expected)
        finally:
            ranking.close()
        # Closed, the ranking holds no state: the next one reads the other's change.
        assert _fts5(r, words, window) != expected


def test_a_message_erased_elsewhere_during_a_recall_search_is_not_shown(
        home: tuple[HierarchicalMemory, OtherProcess], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    m, other = home
    m.recall.append_many([NewMessage("user", "apple pear" if i % 3 else "apple w1", i)
                          for i in range(60)])
    with HierarchicalMemory(tmp_path, embedder=HashingEmbedder(), recall_dense=False,
                            read_only=True) as r:
        r.recall.window = 10  # of the messages with w1 (or with it in their context)
        before = r.recall.search("w1", k=5)
        assert (before.total, before.total_exact) == (10, False)
        # The best match is erased elsewhere once the window is found, before BM25 runs.
        erased = before.hits[0].id
        done = _before(r, monkeypatch, "ORDER BY bm25(", lambda: other.erase(erased))
        found = r.recall.search("w1", k=5)
        assert done
        # Ranked and counted as the messages stood when the search began; the erased one,
        # read afterwards, has no row to show (the page is a row short).
        assert [(h.id, h.score) for h in found.hits] == [
            (h.id, h.score) for h in before.hits[1:]]
        assert (found.total, found.total_exact) == (10, False)
        assert r.store.conn.in_transaction is False

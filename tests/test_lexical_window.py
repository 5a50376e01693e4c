"""Recall's window scored from words in memory (memory/store/sqlite/lexical_window.py) is
FTS5's bm25() bit for bit, stays so across appends without reading the words again, starts
over when a message is erased or forgotten, and leaves search results as they were."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.store.records import RowFilter
from tiermem.memory.store.sqlite import lexical_window
from tiermem.memory.store.sqlite.lexical import BM25List, SQLiteLexical, fts_match
from tiermem.memory.store.sqlite.lexical_window import WindowBM25
from tiermem.memory.tiers.recall import NewMessage

# Stems shared by several words, a few frequent words and many rare ones.
VOCAB = ["run", "running", "runs", "apple", "apples", "pear"] + [f"w{i}" for i in range(30)]
FREQUENCY = [3.0, 2.0, 1.0, 6.0, 1.0, 2.0] + [1.0 / (i + 1) for i in range(30)]
ROLES = ["user", "assistant", "user", "assistant", "tool", "system"]
#: Words in more messages than this are held in memory, the others scored by FTS5.
HELD = 60


@pytest.fixture(autouse=True)
def few_rows_make_a_word_frequent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lexical_window, "HELD_MIN_HITS", HELD)
    monkeypatch.setattr(lexical_window, "HELD_MIN_SHARE", 0.0)


def _text(rng: random.Random) -> str:
    # Some messages past 127 words: their lengths take two bytes in FTS5's docsize record.
    length = rng.randint(120, 160) if rng.random() < 0.03 else rng.randint(1, 12)
    return " ".join(rng.choices(VOCAB, FREQUENCY, k=length))


def _messages(rng: random.Random, count: int, turn: int = 0) -> list[NewMessage]:
    return [NewMessage(rng.choice(ROLES), _text(rng), turn + i) for i in range(count)]


def _memory(rng: random.Random, count: int) -> HierarchicalMemory:
    m = HierarchicalMemory(None, embedder=HashingEmbedder(), recall_dense=False)
    m.recall.append_many(_messages(rng, count), bulk=True)
    return m


@pytest.fixture(scope="module")
def memory() -> Iterator[HierarchicalMemory]:
    m = _memory(random.Random(3), 300)
    yield m
    m.close()


def _filter(roles: bool, below: int | None) -> RowFilter:
    return RowFilter(below=below, roles=("user", "assistant") if roles else (),
                     hide_tool="conversation_search")


def _both(m: HierarchicalMemory, words: list[str], filt: RowFilter,
          window: int) -> tuple[WindowBM25, BM25List]:
    """The window scored with its frequent words from memory, and by FTS5 alone."""
    lexical = m.store.lexical("messages")
    ranking = lexical.rank(words, filt, window)
    assert isinstance(ranking, WindowBM25)
    return ranking, BM25List(m.store, "messages", fts_match(words), filt, window)


def _frequent(m: HierarchicalMemory, word: str) -> bool:
    return len(m.store.lexical("messages").scores([word])) > HELD


def _assert_same(ranking: WindowBM25 | BM25List, full: BM25List) -> None:
    everything, expected = ranking.everything(), full.everything()
    assert everything == expected  # the same rows with the same scores, to the bit
    # Best first; rows of equal score may come in any order in FTS5's list.
    assert list(everything.values()) == sorted(everything.values(), reverse=True)
    assert (ranking.total(), ranking.exact) == (full.total(), full.exact)
    full.close()


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(words=st.lists(st.sampled_from(VOCAB), min_size=1, max_size=4, unique=True),
       window=st.integers(1, 400), roles=st.booleans(),
       below=st.one_of(st.none(), st.integers(1, 310)))
def test_the_window_scored_in_memory_is_fts5s_bm25_bit_for_bit(
        memory: HierarchicalMemory, words: list[str], window: int, roles: bool,
        below: int | None) -> None:
    filt = _filter(roles, below)
    ranking = memory.store.lexical("messages").rank(words, filt, window)
    # A word held in memory (read now or by an earlier example) is always scored from
    # there; examples of rare words alone hold FTS5 to itself.
    cache = memory.store.term_cache("messages")
    if any(cache.hits(w) is not None for w in words):
        assert isinstance(ranking, WindowBM25)
    _assert_same(ranking, BM25List(memory.store, "messages", fts_match(words), filt, window))


def test_a_frequent_word_is_held_and_a_rare_one_beside_it_scored_by_fts5() -> None:
    with _memory(random.Random(3), 300) as m:
        assert _frequent(m, "apple") and not _frequent(m, "w20")
        _assert_same(*_both(m, ["w20", "apple"], _filter(True, None), 100))
        cache = m.store.term_cache("messages")
        assert cache.hits("apple") is not None and cache.hits("w20") is None


@pytest.mark.parametrize("bulk", [True, False])
def test_appends_are_added_to_the_words_in_memory_without_reading_them_again(
        bulk: bool) -> None:
    rng = random.Random(5)
    with _memory(rng, 200) as m:
        words = ["apple", "run", "w4"]
        _assert_same(*_both(m, words, _filter(True, None), 50))
        cache = m.store.term_cache("messages")
        read = cache.rows_read
        for turn in range(3):
            m.recall.append_many(_messages(rng, 7, 1000 + 10 * turn), bulk=bulk)
            _assert_same(*_both(m, words, _filter(True, None), 50))
            _assert_same(*_both(m, words, _filter(False, None), 150))
        assert cache.rows_read == read
        assert cache.rows_appended == 21
        # The counts of common-word tests come from memory too.
        assert cache.hits("apple") == len(m.store.lexical("messages").scores(["apple"]))


@pytest.mark.parametrize("change", ["erase", "erase newest", "forget"])
def test_an_erased_or_forgotten_message_makes_the_words_be_read_again(change: str) -> None:
    rng = random.Random(9)
    with _memory(rng, 120) as m:
        [newest] = m.recall.append_many([NewMessage("user", "apple pear w2 apple", 500)])
        words = ["apple", "pear", "w2"]
        before, full = _both(m, words, _filter(False, None), 100)
        full.close()
        cache = m.store.term_cache("messages")
        read = cache.rows_read
        if change == "forget":
            with m.store.transaction():
                m.store.forgetting.forget([], [], [60], 0.0)
        else:
            m.recall.erase([newest if change == "erase newest" else 60], "asked")
        if change == "erase newest":
            # The next message has the erased one's length and context, so FTS5's row and
            # token counts are as before; its id is past the erased one's, never the same.
            assert m.recall.append_many([NewMessage("user", "w9 w9 w9 w9", 501)]) == [newest + 1]
        after, full = _both(m, words, _filter(False, None), 100)
        assert after.everything() != before.everything()
        _assert_same(after, full)
        assert cache.rows_read > read  # read again, not patched


def test_inside_a_transaction_fts5_scores_the_window_with_what_is_pending() -> None:
    rng = random.Random(11)
    with _memory(rng, 80) as m:
        lexical = m.store.lexical("messages")
        assert isinstance(lexical.rank(["apple"], _filter(False, None), 40), WindowBM25)
        with m.store.transaction():
            [new] = m.recall.append_many([NewMessage("user", "apple apple pear", 500)])
            ranking = lexical.rank(["apple"], _filter(False, None), 40)
            assert not isinstance(ranking, WindowBM25)
            assert new in ranking.everything()
            ranking.close()
        assert isinstance(lexical.rank(["apple"], _filter(False, None), 40), WindowBM25)


def test_recall_pages_and_totals_are_those_fts5_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(13)
    with _memory(rng, 400) as m:
        m.recall.window = 60
        for query in ["apple", "running pear", "w1 w2 apple", "w17", "nothing"]:
            for page in (1, 2, 5):
                pages = []
                for in_memory in (True, False):
                    monkeypatch.setattr(SQLiteLexical, "window_in_memory", in_memory)
                    r = m.recall.search(query, k=5, page=page)
                    pages.append(([(h.id, h.score) for h in r.hits], r.total, r.total_exact))
                assert pages[0] == pages[1]
        assert m.store.term_cache("messages").rows_read > 0  # the words were in memory


def test_only_words_in_most_of_the_newest_messages_are_read_into_memory(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lexical_window, "HELD_MIN_SHARE", 0.5)
    monkeypatch.setattr(lexical_window, "HELD_MIN_HITS", 1)
    # apple in every message (its own text or the one before it), kiwi in a fifth.
    texts = ["apple kiwi" if i % 10 == 0 else "apple" if i % 2 == 0 else f"u{i}"
             for i in range(200)]
    with HierarchicalMemory(None, embedder=HashingEmbedder(), recall_dense=False) as m:
        m.recall.append_many([NewMessage("user", t, i) for i, t in enumerate(texts)])
        lexical, cache = m.store.lexical("messages"), m.store.term_cache("messages")
        ranking = lexical.rank(["kiwi"], _filter(False, None), 10)
        assert isinstance(ranking, BM25List) and cache.rows_read == 0
        ranking.close()
        _assert_same(*_both(m, ["kiwi", "apple"], _filter(False, None), 50))
        assert cache.hits("apple") == 200 and cache.hits("kiwi") is None


def test_common_word_tests_carry_over_appends_counting_only_the_new_rows(
        monkeypatch: pytest.MonkeyPatch) -> None:
    texts = ["apple kiwi" if i % 10 == 0 else "apple" if i % 2 == 0 else f"u{i}"
             for i in range(100)]
    with HierarchicalMemory(None, embedder=HashingEmbedder(), recall_dense=False) as m:
        m.recall.append_many([NewMessage("user", t, i) for i, t in enumerate(texts)])
        lexical = m.store.lexical("messages")
        assert lexical.common_terms(["apple", "kiwi"], len(m.recall)) == {"apple"}
        walks: list[str] = []
        execute = m.store.execute

        def counted(sql: str, params: object = ()) -> object:
            if "OFFSET" in sql:
                walks.append(sql)
            return execute(sql, params)

        monkeypatch.setattr(m.store, "execute", counted)
        m.recall.append_many([NewMessage("user", "apple pear", 200)])
        assert lexical.common_terms(["apple", "kiwi"], len(m.recall)) == {"apple"}
        assert walks == []  # answered from the earlier tests and the new row's count
        # Enough messages without apple that it is no longer in most: tested again.
        m.recall.append_many([NewMessage("user", f"v{i}", 300 + i) for i in range(120)])
        assert lexical.common_terms(["apple", "kiwi"], len(m.recall)) == set()
        assert walks

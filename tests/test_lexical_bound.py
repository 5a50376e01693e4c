"""Bounded BM25 (memory/store/sqlite/lexical_bound.py) and BM25 from words read into memory
(memory/store/sqlite/lexical_cache.py): archival hybrid search that leaves rows holding only
common words unscored, or scores them in memory, ranks, scores and counts exactly as full
scoring by FTS5."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.search.fusion import FusionWeights
from tiermem.memory.store.records import RowFilter
from tiermem.memory.store.sqlite import lexical_bound
from tiermem.memory.store.sqlite.lexical import BM25List, fts_match
from tiermem.memory.store.sqlite.lexical_bound import BoundedBM25, phrase_bound
from tiermem.memory.store.sqlite.lexical_cache import TermCache
from tiermem.memory.types import SearchResult

# A skewed vocabulary: a few words in many rows, most in few.
VOCAB = [f"w{i}" for i in range(60)]
FREQUENCY = [1.0 / (i + 1) for i in range(len(VOCAB))]
TAGS = ["red", "green", "blue"]
ROWS = 600


def _memory(seed: int, fusion: FusionWeights | None = None) -> HierarchicalMemory:
    rng = random.Random(seed)
    m = HierarchicalMemory(None, embedder=HashingEmbedder(), recall_dense=False, fusion=fusion)
    for _ in range(ROWS):
        m.archival_insert(" ".join(rng.choices(VOCAB, FREQUENCY, k=rng.randint(3, 14))),
                          tags=[rng.choice(TAGS)])
    return m


@pytest.fixture(scope="module")
def corpora() -> Iterator[dict[tuple[int, str], HierarchicalMemory]]:
    memories = {(seed, kind): _memory(seed, fusion) for seed in range(2) for kind, fusion in (
        ("hybrid", None), ("words", FusionWeights(lexical=1.0, dense=0.0)))}
    yield memories
    for m in memories.values():
        m.close()


@pytest.fixture
def no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """FTS5 scores every search: no words are read into memory."""
    monkeypatch.setattr(TermCache, "enabled", False)


def _search(m: HierarchicalMemory, query: str, k: int, page: int, tags: list[str] | None,
            how: str, monkeypatch: pytest.MonkeyPatch) -> SearchResult:
    with monkeypatch.context() as patch:
        # "cached": words in memory where the filters allow; "bounded": FTS5, leaving rows
        # of common words unscored; "full": FTS5 scoring every match, phrases in one order.
        patch.setattr(TermCache, "enabled", how == "cached")
        if how == "full":
            patch.setattr(lexical_bound, "MAX_SCORED", -1)
        return m.archival.search(query, k=k, page=page, tags=tags)


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 1), kind=st.sampled_from(["hybrid", "words"]),
       words=st.lists(st.sampled_from(VOCAB), min_size=2, max_size=4, unique=True),
       k=st.integers(1, 15), page=st.integers(1, 3),
       tags=st.one_of(st.none(), st.lists(st.sampled_from(TAGS), min_size=1, max_size=2)))
def test_bounded_search_equals_full_scoring(
        corpora: dict[tuple[int, str], HierarchicalMemory], monkeypatch: pytest.MonkeyPatch,
        seed: int, kind: str, words: list[str], k: int, page: int,
        tags: list[str] | None) -> None:
    m = corpora[(seed, kind)]
    query = " ".join(words)
    full = _search(m, query, k, page, tags, "full", monkeypatch)
    for how in ("bounded", "cached"):
        found = _search(m, query, k, page, tags, how, monkeypatch)
        assert (found.total, found.total_exact) == (full.total, full.total_exact)
        # Bit for bit: the same rows, scores and BM25 in the same order.
        assert [(h.id, h.score, h.relevance, h.similarity) for h in found.hits] == [
            (h.id, h.score, h.relevance, h.similarity) for h in full.hits]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 1), depth=st.integers(1, 80),
       words=st.lists(st.sampled_from(VOCAB), min_size=2, max_size=4, unique=True),
       tags=st.one_of(st.none(), st.lists(st.sampled_from(TAGS), min_size=1, max_size=2)))
def test_bounded_top_is_the_full_lists_top(
        corpora: dict[tuple[int, str], HierarchicalMemory], no_cache: None, seed: int, depth: int,
        words: list[str], tags: list[str] | None) -> None:
    m = corpora[(seed, "words")]
    filt = RowFilter(tags=tags)
    ranking = m.store.lexical("passages").rank(words, filt)
    order = getattr(ranking, "terms", None)
    top = ranking.top(depth)
    if order is not None:  # bounded: against the full list of the same phrase order
        full = BM25List(m.store, "passages", fts_match(order), filt)
        expected = full.top(depth)
        assert list(top.values()) == list(expected.values())
        # Rows of equal score may come in any order, but they are the same rows.
        assert set(top) == set(expected) or (
            min(top.values()) == min(expected.values()) and
            {i for i, s in top.items() if s > min(top.values())} ==
            {i for i, s in expected.items() if s > min(expected.values())})
        assert ranking.total() == full.total()
        full.close()
    ranking.close()


def test_rows_holding_only_common_words_are_left_unscored(
        corpora: dict[tuple[int, str], HierarchicalMemory], no_cache: None) -> None:
    m = corpora[(0, "words")]
    lexical = m.store.lexical("passages")
    ranking = lexical.rank(["w2", "w3", "w45"], RowFilter())
    assert isinstance(ranking, BoundedBM25)
    top = ranking.top(5)
    assert ranking.split == 2  # w2 and w3 left unscored
    full = lexical.scores(["w3", "w2", "w45"])
    # Fewer rows scored than matched, and every row left out is below the bound.
    assert ranking.rows_scored < ranking.total() == len(full)
    unscored = {i: s for i, s in full.items() if i not in ranking.scored}
    assert unscored and max(unscored.values()) < ranking.common_bound
    best = sorted(full.items(), key=lambda row: (-row[1], row[0]))[:5]
    assert sorted(top) == sorted(i for i, _ in best)
    assert all(math.isclose(top[i], s, rel_tol=1e-12) for i, s in best)
    ranking.close()


def test_a_bound_too_high_scores_more_words_before_scoring_everything(
        corpora: dict[tuple[int, str], HierarchicalMemory], no_cache: None) -> None:
    m = corpora[(1, "words")]
    ranking = m.store.lexical("passages").rank(["w0", "w1", "w2", "w50"], RowFilter())
    assert isinstance(ranking, BoundedBM25)
    first = ranking.split
    ranking.top(60)  # deeper than the rows above the first bound
    full = dict(sorted(m.store.lexical("passages").scores(["w0", "w1", "w2", "w50"]).items(),
                       key=lambda row: -row[1])[:60])
    assert set(ranking.found) == set(full)
    assert ranking.split < first or ranking.rows_scored >= ranking.total()
    ranking.close()


def test_a_row_of_common_words_outranks_weak_rare_rows(no_cache: None) -> None:
    filler = " ".join(f"filler{i}" for i in range(60))
    texts = (["kiwi"] + [f"kiwi {filler}"] * 4 + ["apple apple apple pear pear"] * 10
             + ["apple"] * 110 + ["pear"] * 70 + [f"other{i}" for i in range(105)])
    with HierarchicalMemory(None, embedder=HashingEmbedder(), recall_dense=False) as m:
        for text in texts:
            m.archival_insert(text)
        lexical = m.store.lexical("passages")
        ranking = lexical.rank(["apple", "pear", "kiwi"], RowFilter())
        assert isinstance(ranking, BoundedBM25) and ranking.split == 2
        full = sorted(lexical.scores(["apple", "pear", "kiwi"]).values(), reverse=True)
        # The short kiwi row, then the rows of apples and pears, above the long kiwi rows.
        assert list(ranking.top(8).values()) == pytest.approx(full[:8], rel=1e-12)
        assert ranking.split < 2
        ranking.close()


def test_phrase_bound_follows_fts5_idf_floor() -> None:
    assert phrase_bound(100, 99) == pytest.approx(1e-6 * 2.2)
    assert phrase_bound(1000, 1) == pytest.approx(math.log(999.5 / 1.5) * 2.2)

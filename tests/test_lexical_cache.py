"""BM25 from words read into memory (memory/store/sqlite/lexical_cache.py) is FTS5's bm25()
bit for bit, is never used once the index has changed, and archival search that takes only
the nearest passages in meaning ranks as one that takes every match."""

from __future__ import annotations

import json
import random
import re
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.store.records import RowFilter
from tiermem.memory.store.sqlite.lexical import BM25List, fts_match
from tiermem.memory.store.sqlite.lexical_appends import PrivateIndex
from tiermem.memory.store.sqlite.lexical_bound import BoundedBM25, cached_ranking, canonical_order
from tiermem.memory.store.sqlite.lexical_cache import CachedBM25, TermCache
from tiermem.memory.tiers import archival

# Stems shared by several words, a few frequent words and many rare ones.
VOCAB = ["run", "running", "runs", "runner", "apple", "apples", "pear"] + [
    f"w{i}" for i in range(40)]
FREQUENCY = [3.0, 2.0, 1.0, 0.5, 4.0, 1.0, 2.0] + [1.0 / (i + 1) for i in range(40)]
ROWS = 400


def _text(rng: random.Random) -> str:
    # Some rows past 127 words: their lengths take two bytes in FTS5's docsize record.
    length = rng.choice([rng.randint(1, 12), rng.randint(120, 200)])
    return " ".join(rng.choices(VOCAB, FREQUENCY, k=length))


@pytest.fixture(scope="module")
def corpora() -> Iterator[list[HierarchicalMemory]]:
    memories = []
    for seed in range(2):
        rng = random.Random(seed)
        m = HierarchicalMemory(None, embedder=HashingEmbedder(), recall_dense=False)
        m.archival.insert_many([archival.NewPassage(text=_text(rng)) for _ in range(ROWS)])
        memories.append(m)
    yield memories
    for m in memories:
        m.close()


def _full(m: HierarchicalMemory, words: list[str], filt: RowFilter) -> BM25List:
    """FTS5 scoring every match, its phrases in the order the cache adds them."""
    lexical = m.store.lexical("passages")
    hits = {w: len(lexical.scores([w])) for w in words}
    return BM25List(m.store, "passages", fts_match(canonical_order(words, hits)), filt)


def _in_memory(m: HierarchicalMemory, words: list[str], filt: RowFilter) -> CachedBM25:
    """The words' matches scored from memory, read first if need be."""
    cache = m.store.term_cache("passages")
    assert cache.fresh() and cache.load(words)
    return cached_ranking(cache, words, filt)


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 1), depth=st.integers(1, 60),
       words=st.lists(st.sampled_from(VOCAB), min_size=1, max_size=4, unique=True),
       below=st.one_of(st.none(), st.integers(1, ROWS + 5)))
def test_scores_in_memory_are_fts5s_bm25_bit_for_bit(
        corpora: list[HierarchicalMemory], seed: int, depth: int, words: list[str],
        below: int | None) -> None:
    m = corpora[seed]
    filt = RowFilter(below=below)
    ranking = _in_memory(m, words, filt)
    full = _full(m, words, filt)
    top, expected = ranking.top(depth), full.top(depth)
    # Rows of equal score may come in any order in FTS5's list; the scores may not.
    assert list(top.values()) == list(expected.values())
    assert {i for i, s in top.items() if s > ranking.cut} == {
        i for i, s in expected.items() if s > full.cut}
    others = list(range(1, ROWS + 1))
    rest = ranking.scores_of(others)
    assert rest == {i: s for i, s in full.scores_of(others).items() if i not in top}
    assert ranking.total() == full.total()
    assert ranking.everything() == {**top, **rest}
    full.close()


def test_words_the_tokenizer_splits_or_stems_are_read_as_the_index_holds_them() -> None:
    tokenizer = TermCache.tokenizer()
    assert tokenizer.token("running") == "run"
    assert tokenizer.token("well-known") is None  # a phrase of two tokens: FTS5's to score


@pytest.mark.parametrize("change", ["delete", "replace", "replace_same_length", "forget"])
def test_a_change_to_the_index_is_never_answered_from_memory(change: str) -> None:
    rng = random.Random(7)
    with HierarchicalMemory(None, embedder=HashingEmbedder(), recall_dense=False) as m:
        ids = m.archival.insert_many([archival.NewPassage(text=_text(rng)) for _ in range(60)])
        words = ["apple", "pear", "w3"]
        before = _in_memory(m, words, RowFilter()).everything()
        read = m.store.term_cache("passages").rows_read
        held = next(iter(before))
        if change == "delete":
            m.archival.delete([held])
        elif change == "replace":
            m.archival.replace_text(ids[0], "w3 " * 9)
        elif change == "replace_same_length":
            # The same rows and tokens in all: only the count of rewrites tells it apart.
            length = len(m.archival.get_many([held])[held].text.split())
            m.archival.replace_text(held, " ".join(["w39"] * length))
        else:
            m.store.forgetting.forget([], [held], [], 1.0)
        full = _full(m, words, RowFilter())
        assert _in_memory(m, words, RowFilter()).everything() == full.everything() != before
        assert m.store.term_cache("passages").rows_read > read  # read again, not reused
        full.close()


def test_passages_added_are_scored_from_memory_without_reading_the_words_again() -> None:
    rng = random.Random(11)
    with HierarchicalMemory(None, embedder=HashingEmbedder(), recall_dense=False) as m:
        m.archival.insert_many([archival.NewPassage(text=_text(rng)) for _ in range(80)])
        words = ["apple", "pear", "w3"]
        before = _in_memory(m, words, RowFilter()).everything()
        cache = m.store.term_cache("passages")
        read = cache.rows_read
        m.archival_insert("apple pear w3 w3")
        m.archival.insert_many([archival.NewPassage(text=_text(rng)) for _ in range(5)])
        m.archival_insert("nothing held here")
        full = _full(m, words, RowFilter())
        after = _in_memory(m, words, RowFilter()).everything()
        assert after == full.everything() != before
        assert (cache.rows_read, cache.rows_appended) == (read, 7)
        full.close()


@pytest.mark.parametrize("asked", [[], [f"x{i}" for i in range(20)]])
def test_the_private_index_finds_the_words_asked_for_however_many_are_asked(
        asked: list[str]) -> None:
    # Fewer words than the rows' 7 tokens are looked up one by one; more, and every token
    # of the rows is read and the ones asked for kept.
    private = PrivateIndex(sqlite3.connect(":memory:"), threading.Lock())
    rows = [(1, "apple pear apple"), (2, "running runs w3"), (3, "kiwi")]
    sizes, found = private.index(rows, 1, ["appl", "run", *asked])  # as the index stems
    assert sizes == {1: [3], 2: [3], 3: [1]}
    assert found == {"appl": [(1, 2)], "run": [(2, 2)]}


def test_searches_score_from_memory_once_a_query_of_common_words_read_the_lengths() -> None:
    texts = ([f"u{i} v{i}" for i in range(300)] + ["apple pear"] * 20 + ["apple"] * 15
             + ["kiwi apple"] * 2)
    with HierarchicalMemory(None, embedder=HashingEmbedder(), recall_dense=False) as m:
        m.archival.insert_many([archival.NewPassage(text=t) for t in texts])
        lexical = m.store.lexical("passages")
        # A rare word bounds the common one: FTS5 answers, nothing is read into memory.
        assert isinstance(lexical.rank(["apple", "kiwi"], RowFilter()), BoundedBM25)
        assert m.store.term_cache("passages").rows_read == 0
        # No word to bound the others by: the lengths are read, then every search uses them.
        assert isinstance(lexical.rank(["apple"], RowFilter()), CachedBM25)
        assert isinstance(lexical.rank(["apple", "kiwi"], RowFilter()), CachedBM25)
        # A passage added is added to what is held; any other change: FTS5 again, until
        # such a query reads the lengths anew.
        m.archival_insert("pear u1")
        assert isinstance(lexical.rank(["apple", "kiwi"], RowFilter()), CachedBM25)
        m.archival.delete([1])
        assert isinstance(lexical.rank(["apple", "kiwi"], RowFilter()), BoundedBM25)
        assert isinstance(lexical.rank(["apple"], RowFilter()), CachedBM25)


def test_inside_a_transaction_fts5_answers() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder(), recall_dense=False) as m:
        m.archival_insert("apple pear")
        m.store.lexical("passages").rank(["apple"], RowFilter()).close()  # read into memory
        with m.store.transaction():
            new = m.archival.insert_many([archival.NewPassage(text="apple apple")])[0]
            ranking = m.store.lexical("passages").rank(["apple"], RowFilter())
            assert not isinstance(ranking, CachedBM25)
            assert new in ranking.everything()
            ranking.close()


def test_a_read_only_store_searches_with_fts5(tmp_path: Path) -> None:
    with HierarchicalMemory(tmp_path, embedder=HashingEmbedder(), recall_dense=False) as m:
        for text in ("apple pear", "apple", "pear w1"):
            m.archival_insert(text)
        written = [(h.id, h.score) for h in m.archival.search("apple pear").hits]
    with HierarchicalMemory(tmp_path, embedder=HashingEmbedder(), recall_dense=False,
                            read_only=True) as m:
        assert [(h.id, h.score) for h in m.archival.search("apple pear").hits] == written
        assert m.store.term_cache("passages").rows_read == 0


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 1), cap=st.integers(1, 8), k=st.integers(1, 12),
       page=st.integers(1, 3), lexical=st.sampled_from([0.0, 0.3, 0.6, 1.0]),
       words=st.lists(st.sampled_from(VOCAB), min_size=1, max_size=3, unique=True))
def test_taking_only_the_nearest_in_meaning_ranks_as_taking_every_match(
        corpora: list[HierarchicalMemory], monkeypatch: pytest.MonkeyPatch, seed: int,
        cap: int, k: int, page: int, lexical: float, words: list[str]) -> None:
    from tiermem.memory.search.fusion import FusionWeights

    m = corpora[seed]
    weights = FusionWeights(lexical=lexical, dense=1.0 - lexical) if lexical < 1.0 else (
        FusionWeights(lexical=1.0, dense=0.0))
    query = " ".join(words)
    with monkeypatch.context() as patch:
        patch.setattr(archival, "DENSE_CAP_FROM", ROWS + 1)
        every = m.archival.search(query, k=k, page=page, weights=weights)
    above = 0

    def counted_above(*args: object, **kwargs: object) -> object:
        nonlocal above
        above += 1
        return original(*args, **kwargs)

    original = m.archival.vectors.above
    with monkeypatch.context() as patch:
        patch.setattr(archival, "DENSE_CAP_FROM", 1)
        patch.setattr(archival, "DENSE_CAP", cap)
        patch.setattr(m.archival.vectors, "above", counted_above)
        nearest = m.archival.search(query, k=k, page=page, weights=weights)
    assert [(h.id, h.score, h.relevance, h.similarity) for h in nearest.hits] == [
        (h.id, h.score, h.relevance, h.similarity) for h in every.hits]
    assert nearest.total <= every.total and every.total_exact
    if nearest.total_exact:
        assert nearest.total == every.total
    # Only a search that had to widen past a quarter of the rows scans for every match.
    assert above <= 1


def test_archival_search_tells_the_model_only_the_count_is_partial(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tiermem.tools.memory_tools import ToolContext, memory_toolbox

    monkeypatch.setattr(archival, "DENSE_CAP_FROM", 1)
    monkeypatch.setattr(archival, "DENSE_CAP", 1)
    with HierarchicalMemory(None, embedder=HashingEmbedder(), recall_dense=False) as m:
        # Apple rows of several lengths, so that BM25 tells the best ones apart.
        m.archival.insert_many([archival.NewPassage(
            text=f"{'apple' if i < 150 else 'pear'} {'x ' * (i % 7)}n{i}") for i in range(2000)])
        out = json.loads(memory_toolbox().dispatch(
            "archival_memory_search", json.dumps({"query": "apple"}), call_id="c1",
            context=ToolContext(memory=m, turn=1)).content)
        assert out["total"].startswith("at least ")
        assert "every match" in out["ranked"] and "newest" not in out["ranked"]


def test_the_chat_s_archival_count_says_every_match_was_ranked(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from rich.console import Console

    from tiermem.agent.loop import Agent
    from tiermem.agent.offline import OfflinePolicy
    from tiermem.agent.repl import ChatRepl
    from tiermem.agent.search_counts import past_the_last
    from tiermem.memory.types import SearchResult

    monkeypatch.setattr(archival, "DENSE_CAP_FROM", 1)
    monkeypatch.setattr(archival, "DENSE_CAP", 1)
    out = io.StringIO()
    with HierarchicalMemory(None, embedder=HashingEmbedder(), recall_dense=False) as m:
        m.archival.insert_many([archival.NewPassage(
            text=f"{'apple' if i < 150 else 'pear'} {'x ' * (i % 7)}n{i}") for i in range(2000)])
        repl = ChatRepl(Agent(m, OfflinePolicy()), console=Console(file=out, width=200),
                        agent_name="tester", errors=io.StringIO())
        assert repl.run_piped(["/archival apple\n"]) == 0
    # Archival has no window of newest passages: "(the newest ranked)" sent users looking
    # for older ones, which every archival page already ranks.
    label = "every match ranked, not every one counted"
    assert re.fullmatch(rf"at least \d+ matches \({label}\) \(page 1 of \d+\)",
                        out.getvalue().splitlines()[0])
    past = SearchResult(hits=[], total=155, page=99, page_size=10, total_exact=False)
    assert past_the_last(past, recall=False) == (
        f"at least 155 matches ({label}) fill 16 pages: there is no page 99")
    assert past_the_last(past, recall=True).startswith(
        "at least 155 matches (the newest ranked) fill 16 pages: there is no page 99; ")


def test_a_query_past_the_memory_cap_keeps_its_words_and_drops_older_ones(
        corpora: list[HierarchicalMemory], monkeypatch: pytest.MonkeyPatch) -> None:
    from tiermem.memory.store.sqlite import lexical_cache

    m = corpora[0]
    monkeypatch.setattr(lexical_cache, "MAX_POSTINGS", 1)
    _in_memory(m, ["pear"], RowFilter()).close()
    words = ["apple", "run", "w1"]
    full = _full(m, words, RowFilter())
    assert _in_memory(m, words, RowFilter()).everything() == full.everything()
    cache = m.store.term_cache("passages")
    assert cache.hits("pear") is None and all(cache.hits(w) for w in words)
    full.close()


class _PlantedEmbedder:
    """A text's cosine to every query is the number it names (``near0.45``), else 0."""

    id, dim, min_similarity = "planted-8", 8, 0.2

    def embed_documents(self, texts: list[str]) -> Any:
        return np.stack([self._vector(t) for t in texts])

    def embed_query(self, text: str) -> Any:
        return self._vector("near1.0")

    def _vector(self, text: str) -> Any:
        named = re.search(r"near(\d\.\d+)", text)
        cosine = float(named.group(1)) if named else 0.0
        vector = np.zeros(self.dim, dtype=np.float32)
        vector[0], vector[1] = cosine, (1.0 - cosine * cosine) ** 0.5
        return vector


def test_a_tie_at_the_words_cut_does_not_rescan_the_vectors(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # 300 passages tie on the query's word and match nothing in meaning; 300 others match
    # only in meaning, weakly. The words' cut holds the search until their list ends; the
    # nearest list already bounds the rest, so one scan of the vectors is enough.
    texts = ([f"zeta x{i}" for i in range(300)] + [f"near0.{30 + i % 30} y{i}" for i in range(300)]
             + [f"w{i} v{i}" for i in range(2400)])
    with HierarchicalMemory(None, embedder=_PlantedEmbedder(), recall_dense=False) as m:
        m.archival.insert_many([archival.NewPassage(text=t) for t in texts])
        every = m.archival.search("zeta", k=10)
        scans = 0
        original = m.archival.vectors.nearest

        def counted(*args: Any, **kwargs: Any) -> Any:
            nonlocal scans
            scans += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(archival, "DENSE_CAP_FROM", 1)
        monkeypatch.setattr(archival, "DENSE_CAP", 20)
        monkeypatch.setattr(m.archival.vectors, "nearest", counted)
        capped = m.archival.search("zeta", k=10)
    assert [(h.id, h.score) for h in capped.hits] == [(h.id, h.score) for h in every.hits]
    assert scans == 1

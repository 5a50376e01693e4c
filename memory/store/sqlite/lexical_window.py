"""A window of matches (recall's newest 2,000) scored without FTS5 counting every row.

FTS5's bm25() counts every row holding each query word, for its idf, on
every query: 23 ms at 1M messages for a word in 98% of them, whatever the
window. The window itself is cheap to score. So a word found in more than
half of the newest rows (``HELD_MIN_SHARE``) is scored from memory:
``TermCache`` holds its rows and counts and every row's length, kept up to
date across appends (memory/store/sqlite/lexical_appends.py), and the
window's rows are looked up in them. Reading a word costs once 10-20 times
what FTS5 spends on it in a query (0.3 s for a word in most of 1M rows), so
rarer words, which FTS5 counts in a few milliseconds, are left to it: each
is scored alone over the window's rowid range. (A query made only of such
common words is the one recall keeps them in: memory/search/lexical.py
drops them from any other.)

BM25 is a sum of one term per phrase, added in query order, and a phrase
scored alone is that term exactly (bm25() adds it to 0.0 and negates it).
So the window's scores are summed here phrase by phrase in the same order
with the same IEEE operations, each phrase's term from memory
(memory/store/sqlite/lexical_scores.py computes fts5_aux.c's expression) or
from FTS5: bm25()'s scores bit for bit, which tests/test_lexical_window.py
holds them to.

When no query word is that frequent, or the words cannot be held (inside a
transaction, whose changes may still wait in FTS5's memory; a read-only
store; ids too sparse), FTS5 scores the window as one query.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from tiermem.memory.store.sqlite.lexical import fts_match
from tiermem.memory.store.sqlite.lexical_cache import TermCache
from tiermem.memory.store.sqlite.lexical_scores import CachedBM25, positions

if TYPE_CHECKING:
    from tiermem.memory.store.sqlite.store import SQLiteStore

#: A word is scored from memory when it is in more than this many rows and this share of
#: them; FTS5 scores rarer ones. Below half, FTS5's count costs at most about 12 ms a query
#: at 1M rows, and reading the word 10-20 times that. Holding every word past 16,000 rows
#: halved the p50 of a benchmark's class of words in 5-22% of 1M messages but doubled its
#: p99, as each word's first query paid for reading it; a quarter still held a few.
HELD_MIN_HITS = 16_000
HELD_MIN_SHARE = 0.5
#: How many of the newest row ids a word's share is estimated from, in windows.
SHARE_SPAN = 4


class WindowBM25(CachedBM25):
    """The window's rows, scored, handed out best first (ties by id); ``exact`` is False
    when more matches lie below the window."""

    def __init__(self, ids: np.ndarray, scores: np.ndarray, exact: bool) -> None:
        super().__init__(ids, scores)
        self.exact = exact


def window_from_memory(store: SQLiteStore, table: str, terms: Sequence[str],
                       newest: np.ndarray, window: int) -> WindowBM25 | None:
    """The BM25 ranking of the newest ``window`` of the matches ``newest`` (ids newest
    first, one more than the window when there are more), its frequent words scored
    from memory; None when none is frequent or they cannot be held now."""
    rows = np.sort(newest[:window])
    if not len(rows):
        return WindowBM25(rows, np.zeros(0), True)
    cache = store.term_cache(table)
    if not cache.fresh() or not cache.readable():
        return None  # a read-only store: no word can be read, so none is counted
    span = (max(int(rows[0]), int(rows[-1]) - SHARE_SPAN * window + 1), int(rows[-1]))
    in_span = len(rows) - int(np.searchsorted(rows, span[0]))
    if in_span <= HELD_MIN_SHARE * (span[1] - span[0] + 1) and all(
            cache.hits(t) is None for t in terms):
        # No word is in most of the span's rows passing the filters if their union is not
        # (a word frequent only among the others costs FTS5's count, as it did before).
        return None
    held = [t for t in dict.fromkeys(terms) if _frequent(store, table, cache, t, span)]
    if not held or not cache.load(held):
        return None
    total = np.zeros(len(rows), dtype=np.float64)
    for term in terms:
        if term in held:
            hit, share = cache.phrase_among(term, rows)
        else:
            hit, share = _phrase_by_fts5(store, table, term, rows)
        total[hit] += share
    return WindowBM25(rows, total, len(newest) <= window)


def _frequent(store: SQLiteStore, table: str, cache: TermCache, term: str,
              span: tuple[int, int]) -> bool:
    """Whether ``term`` is frequent enough to hold: held words are; for others, the share
    of the row ids in ``span`` (the newest of the window's, at most ``SHARE_SPAN``
    windows) that hold it stands for its share of all rows. It counts at most that many
    rows, where counting all of a word's would cost what FTS5's idf does."""
    if cache.hits(term) is not None:
        return True
    if cache.tokenizer().token(term) is None:
        return False  # a word the tokenizer splits is a phrase, left to FTS5
    fts = f"{table}_fts"
    found = store.execute(f"SELECT count(*) FROM {fts} WHERE {fts} MATCH ? AND rowid BETWEEN"
                          " ? AND ?", (fts_match([term]), *span)).fetchone()[0]
    share = found / (span[1] - span[0] + 1)
    return share > HELD_MIN_SHARE and share * cache.rows > HELD_MIN_HITS


def _phrase_by_fts5(store: SQLiteStore, table: str, term: str, rows: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Which of ``rows`` hold ``term`` (a mask) and its share of their BM25, by FTS5."""
    fts = f"{table}_fts"
    found = store.execute(
        f"SELECT rowid, -bm25({fts}) FROM {fts} WHERE {fts} MATCH ? AND rowid BETWEEN ? AND ?"
        " ORDER BY rowid", (fts_match([term]), int(rows[0]), int(rows[-1]))).fetchall()
    ids = np.fromiter((r[0] for r in found), dtype=np.int64, count=len(found))
    shares = np.fromiter((r[1] for r in found), dtype=np.float64, count=len(found))
    at, hit = positions(ids, rows)
    return hit, shares[at[hit]]

"""A window of matches (recall's newest 2,000) scored without FTS5 counting every row.

FTS5's bm25() counts every row holding each query word, for its idf, on
every query: 23 ms at 1M messages for a word in 98% of them, whatever the
window. The window itself is cheap to score. So a word in more than
``HELD_MIN_HITS`` rows is scored from memory: ``TermCache`` holds its rows
and counts and every row's length, kept up to date across appends
(memory/store/sqlite/lexical_appends.py), and the window's rows are looked
up in them. Reading such a word costs once what FTS5 spends on it in 5-10
queries (0.3 s for a word in most of 1M rows), so rarer words, cheap for
FTS5 to count, are not read: FTS5 scores each of them alone over the
window's rowid range.

BM25 is a sum of one term per phrase, added in query order, and a phrase
scored alone is that term exactly (bm25() adds it to 0.0 and negates it).
So the window's scores are summed here phrase by phrase in the same order
with the same IEEE operations, each phrase's term from memory
(memory/store/sqlite/lexical_cache.py computes fts5_aux.c's expression) or
from FTS5: bm25()'s scores bit for bit, which tests/test_lexical_window.py
holds them to.

When the words cannot be held (inside a transaction, whose changes may still
wait in FTS5's memory; a read-only store; ids too sparse), or no query word
is frequent, FTS5 scores the window as one query.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from tiermem.memory.store.sqlite.lexical import fts_match
from tiermem.memory.store.sqlite.lexical_cache import CachedBM25, TermCache, positions

if TYPE_CHECKING:
    from tiermem.memory.store.sqlite.store import SQLiteStore

#: Words in more rows than this are scored from memory (FTS5 counting them would cost
#: about 0.4 ms a query and more); rarer ones by FTS5.
HELD_MIN_HITS = 16_000
#: The most words remembered as rare before the memo starts over.
MAX_LIGHT = 100_000


class WindowBM25(CachedBM25):
    """The window's rows, scored, handed out best first (ties by id); ``exact`` is False
    when more matches lie below the window."""

    def __init__(self, ids: np.ndarray, scores: np.ndarray, exact: bool) -> None:
        super().__init__(ids, scores)
        self.exact = exact


def window_from_memory(store: SQLiteStore, table: str, terms: Sequence[str],
                       newest: Sequence[int], window: int) -> WindowBM25 | None:
    """The BM25 ranking of the newest ``window`` of the matches ``newest`` (ids newest
    first, one more than the window when there are more), its frequent words scored
    from memory; None when none is frequent or they cannot be held now."""
    rows = np.sort(np.asarray(newest[:window], dtype=np.int64))
    if not len(rows):
        return WindowBM25(rows, np.zeros(0), True)
    cache = store.term_cache(table)
    if not cache.fresh():
        return None
    held = [t for t in dict.fromkeys(terms) if _frequent(store, table, cache, t)]
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


def _frequent(store: SQLiteStore, table: str, cache: TermCache, term: str) -> bool:
    """Whether ``term`` is in more than ``HELD_MIN_HITS`` rows: held words are, others are
    tested once (a walk of their rows to that depth) and remembered while rare."""
    if cache.hits(term) is not None:
        return True
    if term in cache.light or cache.tokenizer().token(term) is None:
        return False  # a word the tokenizer splits is a phrase, left to FTS5
    fts = f"{table}_fts"
    frequent = store.execute(f"SELECT rowid FROM {fts} WHERE {fts} MATCH ? LIMIT 1 OFFSET ?",
                             (fts_match([term]), HELD_MIN_HITS)).fetchone() is not None
    if not frequent:
        if len(cache.light) >= MAX_LIGHT:
            cache.light.clear()
        cache.light.add(term)
    return frequent


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

"""BM25 top matches without scoring every row that holds a common word (MaxScore).

A search with no conditions on the rows themselves scores its words in memory
instead (memory/store/sqlite/lexical_cache.py); this bound serves searches with
tags, dates or other row conditions, and words the cache cannot hold.

FTS5's ``bm25()`` is a sum over the query's phrases, each term
``idf * f * (k1 + 1) / (f + k1 * (1 - b + b * D / avgdl))`` with k1 = 1.2 and
b = 0.75. Whatever a row's frequency ``f`` and length ``D``, a term is below
``idf * (k1 + 1)``. A word in half of 100k rows has an idf near 0, one in a
thousandth about 6.9: a row holding only a query's frequent words scores at
most a few points, while rows holding its rare word score more. Scoring and
sorting every match (``ORDER BY bm25()``, about 1.4 us a row, so 60 ms for a
word in 40% of 100k rows) is what made archival search slow; walking the
matches unscored costs about 30 ns a row.

So the query's words split into *common* ones (the most frequent, whose
bounds add up to ``common_bound``) and *rare* ones. Two small queries score
every row holding a rare word: the rare words alone, and ``(common) AND
(rare)`` for the rows holding both, which FTS5 answers by seeking the common
posting lists to the rare rows. Every other match holds common words only and
scores below ``common_bound``. The best matches are therefore known exactly
down to that bound; a caller asking deeper falls back to the full list.

The scores are bit for bit the full query's: every query here lists the
phrases in one order, common ones first (``BoundedBM25.open`` orders them, and
the full list uses the same order), a phrase a row lacks adds exactly 0.0, and
idf and average length come from the whole table whatever the query.

``scores_of`` scores any other rows in one walk of the matches: the
``+rowid IN`` test keeps SQLite from re-opening the index per id, which would
recount every phrase's rows for its idf each time (about 1 ms per id at 100k
rows), and bm25() runs only on the rows listed.

A deeper ``top``, ``scores_of``, ``total`` and the full list run after ``open``,
whenever the caller asks, and another process may commit in between: scores
read under two states would be no one state's ``bm25()``, and rows the first
queries scored would vanish from the later ones. So a bounded ranking holds the
read transaction ``open`` began (``SQLiteStore.read_snapshot``) until ``close``.
The hits are fetched after that, from the rows as they are then, so a row erased
meanwhile is never shown (memory/search/fusion.py drops an id with no row).
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tiermem.memory.store.records import RowFilter
from tiermem.memory.store.sqlite.filters import match_clauses
from tiermem.memory.store.sqlite.lexical import BM25List, fts_match
from tiermem.memory.store.sqlite.lexical_cache import TermCache
from tiermem.memory.store.sqlite.lexical_scores import CachedBM25

if TYPE_CHECKING:
    from tiermem.memory.store.sqlite.store import SQLiteStore

#: FTS5's bm25() constant k1 (fts5_aux.c).
K1 = 1.2
#: Rows holding a rare word are scored in full; past this many the bound saves little.
MAX_SCORED = 20_000
#: Float rounding can lift a computed term a hair above its bound; rows are handed out
#: only above the bound widened by this much.
_ROUNDING = 1e-9


def phrase_bound(rows: int, hits: int) -> float:
    """The most one phrase found in ``hits`` of ``rows`` rows adds to a row's BM25."""
    idf = math.log((rows - hits + 0.5) / (hits + 0.5))
    return (idf if idf > 0 else 1e-6) * (K1 + 1.0)


def canonical_order(terms: Sequence[str], hits: dict[str, int]) -> list[str]:
    """``terms`` most frequent first (ties in the given order): the phrase order of every
    query, bounded or full, so that both add the same terms in the same order."""
    return sorted(terms, key=lambda t: -hits[t])


def first_split(ordered: Sequence[str], hits: dict[str, int], rows: int) -> int:
    """How many of the ``ordered`` words to leave unscored at first: the most whose bounds
    add up to less than the rarest word's bound, as long as the rows holding the others
    stay under ``MAX_SCORED``; 0 when there is no such split."""
    for split in range(len(ordered) - 1, 0, -1):
        if sum(hits[t] for t in ordered[split:]) > MAX_SCORED:
            return 0
        if sum(phrase_bound(rows, hits[t]) for t in ordered[:split]) < phrase_bound(
                rows, hits[ordered[-1]]):
            return split
    return 0


def _varint(blob: bytes, at: int) -> tuple[int, int]:
    """SQLite's big-endian varint at ``at``: (value, next offset)."""
    value = 0
    for i in range(8):
        byte = blob[at + i]
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, at + i + 1
    return (value << 8) | blob[at + 8], at + 9


def indexed_rows(store: SQLiteStore, table: str) -> int:
    """The row count bm25() takes for its idf: the first field of FTS5's averages record."""
    row = store.execute(f"SELECT block FROM {table}_fts_data WHERE id = 1").fetchone()
    return _varint(bytes(row[0]), 0)[0] if row is not None and row[0] else 0


class BoundedBM25:
    """memory.store.contract.LexicalRanking that scores the rows holding a rare word and
    bounds the rest (module docstring); once asked past the bound, the full list's.
    """

    def __init__(self, store: SQLiteStore, table: str, ordered: list[str], split: int,
                 filt: RowFilter, rows: int, hits: dict[str, int]) -> None:
        self.store, self.table, self.fts_table = store, table, f"{table}_fts"
        self.filt, self.terms, self._rows, self._hits = filt, ordered, rows, hits
        source, where, self._params = match_clauses(table, filt)
        self._from = f"{source} WHERE {' AND '.join(where)}"
        self.exact = True
        self.found: dict[int, float] = {}
        self.best = self.cut = 0.0
        #: How many rows bm25() scored, whatever for.
        self.rows_scored = 0
        self._checked: dict[int, float | None] = {}  # other rows scored by scores_of
        self._full: BM25List | None = None
        self._total: int | None = None
        #: The read transaction every query of the ranking runs in, until ``close``.
        self._snapshot = contextlib.ExitStack()
        self._bound_at(split)

    def _bound_at(self, split: int) -> None:
        """Score every match holding one of the words past the first ``split``."""
        common, rare = self.terms[:split], self.terms[split:]
        self.split = split
        self.common_bound = sum(phrase_bound(self._rows, self._hits[t]) for t in common) * (
            1 + _ROUNDING)
        rare_match = fts_match(rare)
        scored = self._scored(rare_match)
        if scored:
            # The rows holding common words too, scored for every phrase in the same order.
            scored.update(self._scored(f"({fts_match(common)}) AND ({rare_match})"))
        self.rows_scored += len(scored)
        #: Every match holding a rare word, best first.
        self.scored = dict(sorted(scored.items(), key=lambda row: -row[1]))
        self._checked = {i: s for i, s in self._checked.items() if i not in self.scored}
        if not self.found:
            self.best = next(iter(self.scored.values()), 0.0)

    @classmethod
    def open(cls, store: SQLiteStore, table: str, terms: Sequence[str],
             filt: RowFilter) -> BoundedBM25 | BM25List | CachedBM25:
        """The bounded ranking of ``terms``, or every match scored (its phrases in the same
        order) when no word is common enough to leave unscored or the best match does not
        clear the bound: in memory (lexical_cache.py) when the filters allow, else by FTS5.
        Once the cache holds the row lengths, every search it can answer is scored there,
        and so is one whose words match many rows."""
        # The cache's reads and the counts beside them see one state, whatever another
        # process commits meanwhile, and so do a bounded ranking's later queries (module
        # docstring); BM25List's cursor, left open, is made after.
        snapshot = contextlib.ExitStack()
        snapshot.enter_context(store.read_snapshot())
        try:
            ranking = cls._open_in_snapshot(store, table, terms, filt)
        except BaseException:
            snapshot.close()
            raise
        if isinstance(ranking, BoundedBM25):
            ranking._snapshot = snapshot
            return ranking
        snapshot.close()
        if isinstance(ranking, list):
            return BM25List(store, table, fts_match(ranking), filt)
        return ranking

    @classmethod
    def _open_in_snapshot(cls, store: SQLiteStore, table: str, terms: Sequence[str],
                          filt: RowFilter) -> BoundedBM25 | CachedBM25 | list[str]:
        """The ranking, or the words in the order FTS5 is to score every match in."""
        fts = f"{table}_fts"
        cache = _usable_cache(store, table, filt)
        # Right after a change the row lengths must be read again first (about 0.5 us a row),
        # which only a query that would score every match anyway is sure to repay.
        if cache is not None and (cache.held(terms) or cache.lengths_read) and cache.load(terms):
            return cached_ranking(cache, terms, filt)
        hits = {t: int(store.execute(f"SELECT count(*) FROM {fts} WHERE {fts} MATCH ?",
                                     (fts_match([t]),)).fetchone()[0]) for t in terms}
        rows = indexed_rows(store, table)
        # Reading every row's length costs about what walking a quarter of the rows' worth
        # of matches (to bound and look up scores) does.
        if cache is not None and 4 * sum(hits.values()) >= rows and cache.load(terms):
            return cached_ranking(cache, terms, filt)
        ordered = canonical_order(terms, hits)
        split = first_split(ordered, hits, rows) if rows else 0
        if split:
            bounded = cls(store, table, ordered, split, filt, rows, hits)
            if bounded.best > bounded.common_bound:
                return bounded
        if cache is not None and cache.load(terms):
            return cached_ranking(cache, terms, filt)
        return list(ordered)

    def _scored(self, match: str, ids: Sequence[int] | None = None) -> dict[int, float]:
        sql = f"SELECT f.rowid, -bm25({self.fts_table}) {self._from}"
        params: list[Any] = [match, *self._params]
        if ids is not None:
            # The + keeps the test a filter on one walk (module docstring).
            sql += " AND +f.rowid IN (SELECT value FROM json_each(?))"
            params.append(json.dumps(list(ids)))
        return {int(r[0]): float(r[1]) for r in self.store.execute(sql, params)}

    def _fall_back(self) -> BM25List:
        """The full list, read as deep as the rows handed out so far."""
        if self._full is None:
            self._full = BM25List(self.store, self.table, fts_match(self.terms),
                                  self.filt)
            self._full.top(len(self.found))
        return self._full

    def _sync(self, full: BM25List) -> None:
        self.found, self.best, self.cut = full.found, full.best, full.cut

    @property
    def truncated(self) -> bool:
        if self._full is not None:
            return self._full.truncated
        return len(self.found) < len(self.scored) or self.total() > len(self.found)

    def top(self, depth: int) -> dict[int, float]:
        while self._full is None:
            for rowid, score in self.scored.items():
                if len(self.found) >= depth or score <= self.common_bound:
                    # Below the bound a row holding common words only may score higher.
                    break
                if rowid not in self.found:
                    self.found[rowid] = self.cut = score
            if len(self.found) >= depth or self.total() == len(self.found):
                return dict(self.found)
            # Too few rows clear the bound: score the rarest common word's rows too, which
            # lowers the bound, while that keeps the rows scored few.
            hits = sum(self._hits[t] for t in self.terms[self.split - 1:])
            if self.split == 1 or hits > MAX_SCORED:
                break
            self._bound_at(self.split - 1)
        full = self._fall_back()
        found = full.top(depth)
        self._sync(full)
        return found

    def scores_of(self, ids: Sequence[int]) -> dict[int, float]:
        if self._full is not None:
            return self._full.scores_of(ids)
        unknown = [i for i in ids if i not in self.scored and i not in self._checked]
        if unknown:
            scores = self._scored(fts_match(self.terms), unknown)
            self.rows_scored += len(scores)
            self._checked.update((i, scores.get(i)) for i in unknown)
        out: dict[int, float] = {}
        for i in ids:
            if i in self.found:
                continue
            score = self.scored.get(i, self._checked.get(i))
            if score is not None:
                out[i] = score
        return out

    def everything(self) -> dict[int, float]:
        full = self._fall_back()
        found = full.everything()
        self._sync(full)
        return found

    def total(self) -> int:
        if self._full is not None:
            return self._full.total()
        if self._total is None:
            self._total = int(self.store.execute(
                f"SELECT count(*) {self._from}",
                (fts_match(self.terms), *self._params)).fetchone()[0])
        return self._total

    def close(self) -> None:
        if self._full is not None:
            self._full.close()  # its cursor first: the read transaction ends after it
        self._snapshot.close()


def _usable_cache(store: SQLiteStore, table: str, filt: RowFilter) -> TermCache | None:
    """The table's words in memory, when they can answer a search under ``filt`` now."""
    if filt.on_rows:  # conditions on the rows themselves are FTS5's to join
        return None
    cache = store.term_cache(table)
    return cache if cache.fresh() else None


def cached_ranking(cache: TermCache, terms: Sequence[str], filt: RowFilter) -> CachedBM25:
    """Every match of ``terms`` (all in memory) scored in the phrase order FTS5 would use."""
    hits = {t: cache.hits(t) or 0 for t in terms}
    return CachedBM25(*cache.scores(canonical_order(terms, hits), filt))

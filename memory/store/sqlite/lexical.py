"""Full-text search in SQLite: FTS5 match expressions, common-word tests and the BM25 list.

A query's terms (memory.search.lexical.query_terms) become an FTS5 expression of
quoted words, ORed (or ANDed for ``every_term``). The ``porter unicode61``
tokenizer stems both the rows and the query.

``BM25List`` reads one query's BM25 order from a single cursor, and with a
``window`` ranks only the newest matches (memory/search/fusion.py describes what
that does to totals).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from tiermem.memory.store.contract import LexicalRanking
from tiermem.memory.store.records import RowFilter, TextTable
from tiermem.memory.store.sqlite.filters import match_clauses
from tiermem.memory.store.sqlite.lexical_cache import integers_of

if TYPE_CHECKING:
    from tiermem.memory.store.sqlite.store import SQLiteStore


def fts_match(terms: Sequence[str], every_term: bool = False) -> str:
    """An FTS5 MATCH expression of the quoted ``terms``, ORed (ANDed with ``every_term``)."""
    joiner = " AND " if every_term else " OR "
    return joiner.join('"' + t.replace('"', '""') + '"' for t in terms)


class SQLiteLexical:
    """memory.store.contract.LexicalIndex over one table's FTS5 index."""

    def __init__(self, store: SQLiteStore, table: TextTable) -> None:
        self.store, self.table, self.fts_table = store, table, f"{table}_fts"

    #: Whether a search without a window may leave rows holding only common words
    #: unscored (memory/store/sqlite/lexical_bound.py); the ranking is the same either way.
    bounded = True
    #: Whether a window is scored from the words held in memory when they can be
    #: (memory/store/sqlite/lexical_window.py); the scores are the same either way.
    window_in_memory = True

    def rank(self, terms: Sequence[str], filt: RowFilter,
             window: int | None = None) -> LexicalRanking:
        self.store.index_appended()
        if window is None and self.bounded:
            from tiermem.memory.store.sqlite.lexical_bound import BoundedBM25

            return BoundedBM25.open(self.store, self.table, terms, filt)
        match = fts_match(terms)
        if window is None:
            return BM25List(self.store, self.table, match, filt)
        # The probe, the words in memory and FTS5's scores read one state, whatever another
        # process commits meanwhile: a cursor made after the snapshot would score the rows
        # the probe found (and counted for the total) under a later state, with other idfs,
        # less a row erased since. The cursor's statement is stepped once here, and a
        # statement still running keeps its read transaction after the COMMIT, so the
        # rows read later (and any query beside them) come from that same state.
        with self.store.read_snapshot():
            newest = window_probe(self.store, self.table, match, filt, window)
            if self.window_in_memory:
                from tiermem.memory.store.sqlite.lexical_window import window_from_memory

                ranking = window_from_memory(self.store, self.table, terms, newest, window)
                if ranking is not None:
                    return ranking
            return BM25List(self.store, self.table, match, filt, window, newest)

    def scores(self, terms: Sequence[str], every_term: bool = False,
               among: Collection[int] | None = None) -> dict[int, float]:
        self.store.index_appended()
        fts = self.fts_table
        sql = f"SELECT rowid, -bm25({fts}) FROM {fts} WHERE {fts} MATCH ?"
        params: list[Any] = [fts_match(terms, every_term)]
        if among is not None:
            # The + makes it a test on each match, before bm25() runs for it.
            sql += " AND +rowid IN (SELECT value FROM json_each(?))"
            params.append(json.dumps([int(i) for i in among]))
        return {int(rowid): float(score) for rowid, score in self.store.execute(sql, params)}

    def common_terms(self, terms: Sequence[str], rows: int) -> set[str]:
        """Each word costs a walk of its posting list up to half the rows: about
        11 ms at 1M rows for a word in most of them, the cheapest exact test
        measured. An fts5vocab ``term = ?`` lookup is no faster: it counts the
        whole posting list (21 ms for the same word), and takes the stemmed form.
        """
        self.store.index_appended()
        half = rows // 2
        fts = self.fts_table
        found = set()
        cache = self.store.term_cache(self.table)
        # One state for the cache and the counts: a row another process appends meanwhile
        # is counted once, when the cache next takes appends.
        with self.store.read_snapshot():
            # Counts read into memory, or tests made since the index last changed (or only
            # had rows appended, counted on top), answer at once.
            usable = cache.fresh()
            # The tests describe the rows through the state the cache read, and no further.
            through = cache.through if usable and cache.through is not None else 2**63 - 1
            for term in terms:
                common: bool | None = None
                if usable:
                    hits = cache.hits(term)
                    common = hits > half if hits is not None else cache.common_from_bounds(
                        term, half, partial(self._rows_between, term))
                if common is None:
                    # OFFSET skips rows without handing them out: 40% faster than count(*)
                    # over LIMIT.
                    common = self.store.execute(
                        f"SELECT rowid FROM {fts} WHERE {fts} MATCH ? AND rowid <= ?"
                        " LIMIT 1 OFFSET ?", (fts_match([term]), through, half)
                    ).fetchone() is not None
                    if usable:
                        cache.note_common(term, half, common)
                if common:
                    found.add(term)
        return found

    def _rows_between(self, term: str, after: int, through: int) -> int:
        """How many rows with ids past ``after`` and up to ``through`` hold ``term`` (FTS5
        seeks straight to them)."""
        fts = self.fts_table
        return int(self.store.execute(
            f"SELECT count(*) FROM {fts} WHERE {fts} MATCH ? AND rowid > ? AND rowid <= ?",
            (fts_match([term]), after, through)).fetchone()[0])


def window_probe(store: SQLiteStore, table: str, match: str, filt: RowFilter,
                 window: int) -> np.ndarray:
    """The ids of the newest ``window + 1`` matches that pass ``filt``, newest first.

    FTS5 hands out rowids in the order asked without scoring, so there is no sort
    either: about 0.3 ms at 1M rows for a word in most of them, read as one string
    (a row per id took 0.75 ms).
    """
    source, where, filter_params = match_clauses(table, filt)
    text = store.execute(
        f"SELECT group_concat(r) FROM (SELECT f.rowid AS r {source}"
        f" WHERE {' AND '.join(where)} ORDER BY f.rowid DESC LIMIT ?)",
        (match, *filter_params, window + 1)).fetchone()[0]
    return np.sort(integers_of(text))[::-1]


class BM25List:
    """The BM25 list of one query, read from one cursor as deep as needed.

    Without LIMIT, SQLite scores and sorts every match once; reading further
    is then nearly free, where re-running the query with a larger LIMIT would
    score everything again. (Measured at 100k rows: +20% for the first rows,
    against +100% for each re-run.) For the same reason the BM25 of rows below
    the cut is looked up by reading the rest of this cursor, not by a new
    ``rowid IN (...)`` query: FTS5 re-runs the whole match for each such id.

    With a ``window``, ``window_probe`` walks the matches that pass the filters
    newest first, unscored, to the ``window + 1``-th (``newest``, unless given),
    and the BM25 query is bounded to the rowids it saw. Either way it yields the
    total, when exact, without a count query. Two costs still grow with the
    matches: bm25() counts each word's rows once per query for its idf (23 ms
    at 1M rows for a word in 98% of them; ``SQLiteLexical.rank`` scores a window
    from memory instead when it can, memory/store/sqlite/lexical_window.py), and a
    filter that few matches pass (``roles=["tool"]``, dates long past) makes
    the walk visit every newer match.
    """

    def __init__(self, store: SQLiteStore, table: str, match: str, filt: RowFilter,
                 window: int | None = None, newest: np.ndarray | None = None) -> None:
        fts_table = f"{table}_fts"
        self.store, self.fts_table = store, fts_table
        self.exact = True
        self._total: int | None = None
        source, where, filter_params = match_clauses(table, filt)
        params = [match, *filter_params]
        empty = False
        if window is not None:
            if newest is None:
                newest = window_probe(store, table, match, filt, window)
            count = len(newest)
            empty = count == 0
            if count > window:
                self.exact, self._total = False, window
                where.append("f.rowid > ?")
            else:
                self._total = int(count)
                where.append("f.rowid >= ?")
            # The upper bound skips newer matches that fail the filters (a date range
            # in the past), which the probe has already walked past once.
            where.append("f.rowid <= ?")
            params += [int(newest[-1]), int(newest[0])] if count else [None, None]
        self._from, self._params = f"{source} WHERE {' AND '.join(where)}", tuple(params)
        # No match at all: no BM25 query either (its bounds would be NULL).
        self._cursor = store.execute("SELECT NULL, NULL WHERE 0") if empty else store.execute(
            f"SELECT f.rowid, -bm25({fts_table}) {self._from} ORDER BY bm25({fts_table})",
            self._params)
        self.found: dict[int, float] = {}  # rowid -> BM25 (higher is better), best first
        self.best = 0.0  # the best BM25 of all matches
        self.cut = 0.0  # the last BM25 read
        self._unread: dict[int, float] = {}  # drained from the cursor, not yet handed out
        self._exhausted = empty

    @property
    def truncated(self) -> bool:
        """Whether matches remain below the ones handed out by ``top``."""
        return not self._exhausted or bool(self._unread)

    def _next(self, n: int) -> list[tuple[int, float]]:
        rows: list[tuple[int, float]] = []
        while self._unread and len(rows) < n:
            rowid = next(iter(self._unread))
            rows.append((rowid, self._unread.pop(rowid)))
        if len(rows) < n and not self._exhausted:
            fetched = self._cursor.fetchmany(n - len(rows))
            rows += [(int(r[0]), float(r[1])) for r in fetched]
            if len(rows) < n:
                self._finish()
        return rows

    def _finish(self) -> None:
        self._exhausted = True
        self._cursor.close()
        self._total = len(self.found) + len(self._unread)

    def top(self, depth: int) -> dict[int, float]:
        """The best ``depth`` matches (all of them if fewer)."""
        need = depth - len(self.found)
        if need > 0 and self.truncated:
            rows = self._next(need)
            if rows and not self.found:
                self.best = rows[0][1]
            self.found.update(rows)
            if rows:
                self.cut = rows[-1][1]
            if self._exhausted:
                self._total = len(self.found) + len(self._unread)
        return dict(self.found)

    def scores_of(self, ids: Sequence[int]) -> dict[int, float]:
        """BM25 of those ``ids`` (not yet handed out) that match the words."""
        if not self._exhausted:
            # Insertion order keeps the BM25 order for later calls to top().
            self._unread.update((int(r[0]), float(r[1])) for r in self._cursor.fetchall())
            self._finish()
        return {i: self._unread[i] for i in ids if i in self._unread}

    def everything(self) -> dict[int, float]:
        """Every match (a window's worth at most, when windowed), best first.

        The windowed BM25 query has scored all of them before its first row
        comes back, so reading the rest costs little.
        """
        if not self._exhausted:
            # Rows come as (int, float) already, in BM25 order.
            self._unread.update(self._cursor.fetchall())
            self._finish()
        # Handed out and unread rows both came off the cursor in BM25 order, so joined
        # they are still in it: no sort.
        self.found.update(self._unread)
        self._unread = {}
        if self.found:
            self.best, self.cut = next(iter(self.found.values())), next(reversed(
                self.found.values()))
        return dict(self.found)

    def total(self) -> int:
        """The matches ranked: every match, unless ``exact`` is False."""
        if self._total is None:
            self._total = int(self.store.execute(
                f"SELECT count(*) {self._from}", self._params).fetchone()[0])
        return self._total

    def close(self) -> None:
        self._cursor.close()

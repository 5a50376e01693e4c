"""The lexical side of search: FTS5 query text, common-word pruning and the BM25 list.

A query becomes an FTS5 expression ORing its quoted content words (stopwords
out). A word found in more than half of the rows is pruned from a query that
has other words (``lexical_query_text``): BM25 gives it an idf of almost
zero, so it ranks nothing, yet it would make most rows matches.

``BM25List`` reads one query's BM25 order from a single cursor, and with a
``window`` ranks only the newest matches (memory/search.py describes what
that does to totals).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memory.store.sqlite import SQLiteStore
from memory.symbols import symbol_words

if TYPE_CHECKING:
    from memory.search import FusionWeights

#: Below this many rows, document frequencies are too coarse to call a word uninformative.
PRUNE_MIN_ROWS = 50

# Words that carry no topic; without them FTS5 would OR-match nearly every row.
STOPWORDS = frozenset(
    {
        "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are",
        "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but",
        "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for",
        "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself",
        "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself",
        "just", "me", "more", "most", "my", "myself", "no", "nor", "not", "now", "of", "off", "on",
        "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same",
        "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them",
        "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too",
        "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which",
        "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself",
        "yourselves", "s", "t", "don", "ll", "ve", "re", "d", "m", "o", "y", "ain", "aren",
        "couldn", "didn", "doesn", "hadn", "hasn", "haven", "isn", "ma", "mightn", "mustn",
        "needn", "shan", "shouldn", "wasn", "weren", "won", "wouldn", "also", "get", "got", "tell",
        "know", "remember", "ever",
    }
)
_TERM = re.compile(r"[^\W_]+", re.UNICODE)
_SPACES = re.compile(r"\s+")


def query_terms(text: str) -> list[str]:
    """Content words of a query, lowercased, de-duplicated, in order; then the stand-in
    words of its emoji and other symbols, which the index holds (memory/symbols.py)."""
    seen: dict[str, None] = {}
    for word in _TERM.findall(text.lower()):
        if word not in STOPWORDS and (len(word) > 1 or word.isdigit()):
            seen.setdefault(word, None)
    for word in symbol_words(text):
        seen.setdefault(word, None)
    return list(seen)


def _quoted(terms: Sequence[str], joiner: str = " OR ") -> str:
    return joiner.join('"' + t.replace('"', '""') + '"' for t in terms)


def fts_query(text: str, every_word: bool = False) -> str | None:
    """An FTS5 MATCH expression ORing the quoted content words (ANDing them with
    ``every_word``), or None if there are none."""
    terms = query_terms(text)
    return _quoted(terms, " AND " if every_word else " OR ") if terms else None


@dataclass(frozen=True)
class Filter:
    """An SQL condition on the base table (aliased ``b``) with its parameters.

    ``below`` keeps only rowids below it. It is apart from ``sql`` so that FTS5
    gets it as a rowid bound on its own posting lists, not as a test of each
    joined row.
    """

    sql: str = ""
    params: tuple[Any, ...] = ()
    below: int | None = None


def common_terms(
    store: SQLiteStore, table: str, fts_table: str, terms: Sequence[str], rows: int | None = None
) -> set[str]:
    """The ``terms`` that occur in more than half of the rows of ``table`` (``rows`` of them,
    counted if not given).

    Each word costs a walk of its posting list up to half the rows: about
    11 ms at 1M rows for a word in most of them, the cheapest exact test
    measured. An fts5vocab ``term = ?`` lookup is no faster: it counts the
    whole posting list (21 ms for the same word), and takes the stemmed form.
    """
    if rows is None:
        rows = int(store.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    if rows < PRUNE_MIN_ROWS or not terms:
        return set()
    half = rows // 2
    found = set()
    for term in terms:
        # OFFSET skips rows without handing them out: 40% faster than count(*) over LIMIT.
        beyond_half = store.execute(
            f"SELECT rowid FROM {fts_table} WHERE {fts_table} MATCH ? LIMIT 1 OFFSET ?",
            (_quoted([term]), half),
        ).fetchone()
        if beyond_half is not None:
            found.add(term)
    return found


def without_words(text: str, words: set[str]) -> str:
    """``text`` with every occurrence of ``words`` (and a possessive 's after it) removed."""
    if not words:
        return text
    pattern = re.compile(
        r"(?<![^\W_])(?:" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
        + r")(?:['’]s)?(?![^\W_])",
        re.IGNORECASE,
    )
    return _SPACES.sub(" ", pattern.sub(" ", text)).strip()


def dense_query_text(
    store: SQLiteStore, table: str, fts_table: str, query: str, rows: int | None = None
) -> str:
    """The text to embed for ``query``: without words common to most rows, if any remain."""
    terms = query_terms(query)
    if len(terms) < 2:  # a lone word stays whatever its frequency: no need to count it
        return query
    common = common_terms(store, table, fts_table, terms, rows)
    if not common or common.issuperset(terms):
        return query
    return without_words(query, common)


def lexical_query_text(
    store: SQLiteStore, table: str, fts_table: str, query: str, weights: FusionWeights,
    rows: int | None = None,
) -> str:
    """The query for FTS5: without words found in most rows (when ``prune_common``).

    Such a word gets almost no BM25 weight, so it ranks nothing, yet it would
    make most rows matches to score, sort and count. Rows matching the other
    words keep their order, except where their BM25 ties to within FTS5's
    1e-6 idf floor: ties go by id. A lone word is kept whatever its frequency.
    """
    if not weights.prune_common:
        return query
    return dense_query_text(store, table, fts_table, query, rows)


class BM25List:
    """The BM25 list of one query, read from one cursor as deep as needed.

    Without LIMIT, SQLite scores and sorts every match once; reading further
    is then nearly free, where re-running the query with a larger LIMIT would
    score everything again. (Measured at 100k rows: +20% for the first rows,
    against +100% for each re-run.) For the same reason the BM25 of rows below
    the cut is looked up by reading the rest of this cursor, not by a new
    ``rowid IN (...)`` query: FTS5 re-runs the whole match for each such id.

    With a ``window``, a first query walks the matches that pass the filters
    newest first, unscored, to the ``window + 1``-th (about 0.5 ms at 1M rows,
    for a word in most of them), and the BM25 query is bounded to the rowids
    it saw. Either way it yields the total, when exact, without a count query.
    Two costs still grow with the matches: bm25() counts each word's rows once
    per query for its idf (13 ms at 1M rows for a word in 88% of them), and a
    filter that few matches pass (``roles=["tool"]``, dates long past) makes
    the walk visit every newer match.
    """

    def __init__(self, store: SQLiteStore, table: str, fts_table: str, match: str, filt: Filter,
                 window: int | None = None) -> None:
        self.store, self.fts_table = store, fts_table
        self.exact = True
        self._total: int | None = None
        # Every FTS row has its base row, so without a filter the join is only cost.
        source = (f"FROM {fts_table} f JOIN {table} b ON b.id = f.rowid" if filt.sql
                  else f"FROM {fts_table} f")
        where, params = [f"{fts_table} MATCH ?"], list[Any]([match])
        if filt.below is not None:
            where.append("f.rowid < ?")
            params.append(filt.below)
        if filt.sql:
            where.append(f"({filt.sql})")
            params.extend(filt.params)
        empty = False
        if window is not None:
            # FTS5 hands out rowids in the order asked without scoring, so no sort either.
            count, oldest, newest = store.execute(
                f"SELECT count(*), min(r), max(r) FROM (SELECT f.rowid AS r {source}"
                f" WHERE {' AND '.join(where)} ORDER BY f.rowid DESC LIMIT ?)",
                (*params, window + 1)).fetchone()
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
            params += [oldest, newest]
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
            self._unread.update((int(r[0]), float(r[1])) for r in self._cursor.fetchall())
            self._finish()
        rows = sorted({**self.found, **self._unread}.items(), key=lambda row: -row[1])
        self.found, self._unread = dict(rows), {}
        if rows:
            self.best, self.cut = rows[0][1], rows[-1][1]
        return dict(self.found)

    def total(self) -> int:
        """The matches ranked: every match, unless ``exact`` is False."""
        if self._total is None:
            self._total = int(self.store.execute(
                f"SELECT count(*) {self._from}", self._params).fetchone()[0])
        return self._total

    def close(self) -> None:
        self._cursor.close()

"""Full-text search in PostgreSQL, ranked by BM25 as SQLite's FTS5 ranks it.

``ts_rank_cd`` has no inverse document frequency: a row repeating a word found
everywhere would outrank one holding the query's rare word. BM25 weighs each
word by its rarity, and computing it as FTS5 does (same k1, b and idf floor)
makes both backends put the same rows first. Its parts: a word's document count
from ``tiermem.lexeme_stats`` (one lookup, however many rows hold it), the row's
count of each query word from ``ts_rank_cd`` (with every weight 1 and no
normalisation, a one-word query's rank is that word's number of positions in the
row), its length from ``n_words``, and the table's size and mean length from
``tiermem.text_stats``; both counters plus the reading transaction's own pending
changes (memory/store/postgres/folded_stats.py).

Every query is ANDed with the agent's own lexeme
(memory/store/postgres/schema_search.py), so the GIN index returns only the
agent's matches. A ranking of the newest ``window`` matches walks the agent's
rows newest first through the primary key, in id ranges sized from the words'
document counts: for a word in most rows the first range holds the window, and
for a rare one the range is the whole table, read through the GIN index. The
window's rows are then scored by id.

A ranking's statements run one by one: the counts when it opens, its rows when a
search asks for them, deeper ones, particular rows' scores and the total later.
In an autocommit connection each statement would see every commit made before
it (PostgreSQL's READ COMMITTED), so a reader would rank the rows of one state
with the counts of another: rows the writer appended meanwhile, scored with idfs
that never counted them, and a total or a window missing a row it erased. So a
ranking opened outside a transaction begins a REPEATABLE READ, read-only one,
whose statements all see the state the first saw, and ends it at ``close``
(``LexicalRanking.close``: before the rows ranked are read or anything is
written). Inside a transaction it runs in that one: only the agent's writer
changes its rows, and that is the connection the transaction is on.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import psycopg

from tiermem.memory.store.postgres.folded_stats import DOCUMENT_COUNTS, TABLE_SIZE
from tiermem.memory.store.postgres.schema_search import agent_lexeme
from tiermem.memory.store.postgres.scope import Scope, filter_sql
from tiermem.memory.store.records import RowFilter

#: FTS5's floor for the idf of a word in more than half of the rows.
IDF_FLOOR = 1e-6
#: Below this many rows, document frequencies are too coarse to call a word common.
PRUNE_MIN_ROWS = 50
#: How many matches the first read of a ranking fetches at least.
FIRST_READ = 64
#: How much wider than the expected span of ``window`` matches the first id range is.
WALK_MARGIN = 1.25


def _tsquery(lexemes: Sequence[str], joiner: str) -> str:
    return f" {joiner} ".join("'" + lexeme.replace("'", "''").replace("\\", "\\\\") + "'"
                              for lexeme in lexemes)


@dataclass(frozen=True)
class QueryParts:
    """One query made ready: its tsquery and what BM25 needs of each of its lexemes."""

    query: str
    lexemes: list[str]
    idf: list[float]
    counts: list[int]
    rows: int
    mean_words: float


class PgLexicalIndex:
    """The full-text search of one table of one agent."""

    def __init__(self, scope: Scope, table: str) -> None:
        self.scope, self.table = scope, table
        #: A row's length in words for BM25; a message's context counts (schema_search.py).
        self.length = "b.n_words + b.context_words" if table == "messages" else "b.n_words"

    def scoped(self, query: str) -> str:
        """``query`` (tsquery text) limited to the agent's rows."""
        return f"{_tsquery([agent_lexeme(self.scope.agent)], '&')} & ({query})"

    def lexemes(self, terms: Sequence[str]) -> dict[str, list[str]]:
        """Each term's stemmed forms, as the index holds them."""
        rows = self.scope.conn.execute(
            "SELECT t, coalesce((SELECT array_agg(u.lexeme) FROM unnest(to_tsvector("
            "'tiermem.english_all', regexp_replace(t, '[^[:alnum:]]+', ' ', 'g'))) u), "
            "'{}') FROM unnest(%s::text[]) t", (list(terms),)).fetchall()
        return {str(t): list(lex) for t, lex in rows}

    def _document_counts(self, lexemes: Sequence[str]) -> list[int]:
        """How many of the agent's rows hold each lexeme."""
        rows = self.scope.conn.execute(DOCUMENT_COUNTS, {
            "agent": self.scope.agent, "tab": self.table, "lexemes": list(lexemes)}).fetchall()
        found = {str(lexeme): int(n) for lexeme, n in rows}
        return [found.get(lex, 0) for lex in lexemes]

    def _table_size(self) -> tuple[int, int]:
        """The agent's rows in the table and their words."""
        stats = self.scope.conn.execute(TABLE_SIZE, {
            "agent": self.scope.agent, "tab": self.table}).fetchone()
        return (int(stats[0]), int(stats[1])) if stats else (0, 0)

    def _query_parts(self, terms: Sequence[str], every_term: bool) -> QueryParts | None:
        by_term = self.lexemes(terms)
        lexemes = list(dict.fromkeys(lex for t in terms for lex in by_term.get(t, [])))
        if not lexemes:
            return None
        if every_term:
            groups = ["(" + _tsquery(by_term[t], "|") + ")" for t in terms if by_term.get(t)]
            if len(groups) < len(terms):
                return None
            query = " & ".join(groups)
        else:
            query = _tsquery(lexemes, "|")
        rows, words = self._table_size()
        counts = self._document_counts(lexemes)
        idf = []
        for n in counts:
            value = math.log((rows - n + 0.5) / (n + 0.5)) if rows else 0.0
            idf.append(value if value > 0 else IDF_FLOOR)
        return QueryParts(query, lexemes, idf, counts, rows, words / rows if rows else 0.0)

    def rank(self, terms: Sequence[str], filt: RowFilter,
             window: int | None = None) -> PgRanking:
        snapshot = self._snapshot()
        try:
            return PgRanking(self, self._query_parts(terms, False), filt, window, snapshot)
        except BaseException:
            snapshot.close()
            raise

    def scores(self, terms: Sequence[str], every_term: bool = False,
               among: Collection[int] | None = None) -> dict[int, float]:
        with self._snapshot():  # the counts and the rows of one state (module docstring)
            parts = self._query_parts(terms, every_term)
            if parts is None or (among is not None and not among):
                return {}
            ranking = PgRanking(self, parts, RowFilter(), None)
            return ranking.everything() if among is None else ranking.scores_of(list(among))

    def _snapshot(self) -> contextlib.ExitStack:
        """A read-only REPEATABLE READ transaction begun on the connection, ended when the
        stack closes; nothing when a transaction is open already (module docstring)."""
        stack, conn = contextlib.ExitStack(), self.scope.conn
        if conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
            conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            stack.callback(_end_read, conn)
        return stack

    def common_terms(self, terms: Sequence[str], rows: int) -> set[str]:
        if rows < PRUNE_MIN_ROWS or not terms:
            return set()
        half = rows // 2
        found = set()
        for term, lexemes in self.lexemes(terms).items():
            if not lexemes:
                continue
            if self._in_more_rows_than(lexemes, half):
                found.add(term)
        return found

    def _in_more_rows_than(self, lexemes: Sequence[str], rows: int) -> bool:
        """Whether more than ``rows`` of the agent's rows hold any of ``lexemes``."""
        counts = self._document_counts(lexemes)
        # At least as many rows as the commonest lexeme's, at most their sum: only in
        # between are the rows counted (and the count stops past ``rows``).
        if max(counts) > rows or sum(counts) <= rows:
            return max(counts) > rows
        return int(self.scope.value(
            f"SELECT count(*) FROM (SELECT 1 FROM tiermem.{self.table} b "
            f"WHERE b.agent_id = %s AND b.tsv @@ %s::tsquery LIMIT %s) m",
            (self.scoped(_tsquery(lexemes, "|")), rows + 1))) > rows


def _end_read(conn: psycopg.Connection) -> None:
    """End the read transaction ``_snapshot`` began: nothing was written in it, and after a
    failed statement rolling back is all PostgreSQL allows (a lost connection has none)."""
    if conn.info.transaction_status in (psycopg.pq.TransactionStatus.INTRANS,
                                        psycopg.pq.TransactionStatus.INERROR):
        conn.execute("ROLLBACK")


def _bm25_sql(parts: QueryParts, length: str) -> tuple[str, list[Any]]:
    """The BM25 of row ``b`` as an SQL expression, and its parameters (FTS5's k1 = 1.2,
    b = 0.75); ``length`` is the row's length in words, as SQL."""
    terms, params = [], []
    for lexeme, idf in zip(parts.lexemes, parts.idf, strict=True):
        tf = "ts_rank_cd('{1,1,1,1}', b.tsv, %s::tsquery, 0)"
        terms.append(f"%s * {tf} * 2.2 / ({tf} + 1.2 * (0.25 + 0.75 * ({length}) "
                     f"/ greatest(%s, 1e-9)))")
        query = _tsquery([lexeme], "|")
        params += [idf, query, query, parts.mean_words]
    return "(" + " + ".join(terms) + ")", params


class PgRanking:
    """One query's matches in BM25 order, read as deep as the caller needs.

    Reading deeper runs the ranking again with a larger limit (doubling), and
    the scores of particular rows are looked up by id, which PostgreSQL does
    through the primary key. ``snapshot`` holds the read transaction they all
    run in (module docstring) until ``close``, or until every match is read: the
    total is known then, and nothing is left to ask the database.
    """

    def __init__(self, index: PgLexicalIndex, parts: QueryParts | None,
                 filt: RowFilter, window: int | None,
                 snapshot: contextlib.ExitStack | None = None) -> None:
        self.index = index
        self._snapshot = snapshot or contextlib.ExitStack()
        self.exact = True
        self.found: dict[int, float] = {}
        self.best = 0.0
        self.cut = 0.0
        self._ranked: list[tuple[int, float]] = []
        self._exhausted = parts is None
        self._total: int | None = 0 if parts is None else None
        if parts is None:
            self._snapshot.close()
            return
        where, params = filter_sql(filt, index.table)
        self._where = "b.agent_id = %s AND b.tsv @@ %s::tsquery" + (f" AND {where}"
                                                                     if where else "")
        self._params: list[Any] = [index.scope.agent, index.scoped(parts.query), *params]
        self._score, self._score_params = _bm25_sql(parts, index.length)
        if window is not None:
            newest = self._newest_matches(parts, window + 1)
            if len(newest) > window:
                self.exact, newest = False, newest[:window]
            self._total = len(newest)
            self._exhausted = not newest
            # The window's rows by id: a condition on the words as well could lead the
            # planner to read every match of a common word from the GIN index.
            self._where = "b.agent_id = %s AND b.id = ANY(%s::bigint[])"
            self._params = [index.scope.agent, newest]
            if self._exhausted:
                self._snapshot.close()

    def _newest_matches(self, parts: QueryParts, wanted: int) -> list[int]:
        """The ids of the newest ``wanted`` matches passing the filters, newest first."""
        scope, table = self.index.scope, self.index.table
        top = scope.value(f"SELECT max(id) FROM tiermem.{table} WHERE agent_id = %s")
        if top is None:
            return []
        # At least this share of the rows match: the commonest lexeme's.
        share = max(parts.counts) / parts.rows if parts.rows else 1.0
        span = int(wanted / max(share, 1e-9) * WALK_MARGIN) + 1
        high, found = int(top), list[int]()
        while True:
            low = high - span
            found += [int(r[0]) for r in scope.conn.execute(
                f"SELECT b.id FROM tiermem.{table} b WHERE {self._where} "
                f"AND b.id > %s AND b.id <= %s ORDER BY b.id DESC LIMIT %s",
                (*self._params, low, high, wanted - len(found))).fetchall()]
            if len(found) >= wanted or low <= 0:
                return found
            high, span = low, span * 4

    def _read(self, limit: int | None, ids: Sequence[int] | None = None
              ) -> list[tuple[int, float]]:
        where, params = self._where, list(self._params)
        if ids is not None:
            where += " AND b.id = ANY(%s::bigint[])"
            params.append(list(ids))
        rows = self.index.scope.conn.execute(
            f"SELECT b.id, {self._score} AS s "
            f"FROM tiermem.{self.index.table} b WHERE {where} ORDER BY s DESC, b.id"
            + (" LIMIT %s" if limit is not None else ""),
            (*self._score_params, *params, *([limit] if limit is not None else []))
        ).fetchall()
        return [(int(i), float(s)) for i, s in rows]

    def _ensure(self, depth: int | None) -> None:
        if self._exhausted or (depth is not None and len(self._ranked) >= depth):
            return
        limit = None if depth is None else max(depth, FIRST_READ, 2 * len(self._ranked))
        self._ranked = self._read(limit)
        if limit is None or len(self._ranked) < limit:
            self._exhausted = True
            if self.exact:
                self._total = len(self._ranked)
            # Every later answer comes from the rows read (a window's total came at open).
            self._snapshot.close()
        if self._ranked:
            self.best = self._ranked[0][1]

    @property
    def truncated(self) -> bool:
        return not self._exhausted or len(self._ranked) > len(self.found)

    def top(self, depth: int) -> dict[int, float]:
        if depth > len(self.found):
            self._ensure(depth)
            self.found = dict(self._ranked[:depth])
            if self.found:
                self.cut = self._ranked[len(self.found) - 1][1]
        return dict(self.found)

    def scores_of(self, ids: Sequence[int]) -> dict[int, float]:
        wanted = [i for i in ids if i not in self.found]
        if not wanted or (self._exhausted and not self._ranked):
            return {}
        if self._exhausted:
            ranked = dict(self._ranked)
            return {i: ranked[i] for i in wanted if i in ranked}
        return dict(self._read(None, wanted))

    def everything(self) -> dict[int, float]:
        self._ensure(None)
        self.found = dict(self._ranked)
        if self._ranked:
            self.best, self.cut = self._ranked[0][1], self._ranked[-1][1]
        return dict(self.found)

    def total(self) -> int:
        if self._total is None:
            self._total = int(self.index.scope.conn.execute(
                f"SELECT count(*) FROM tiermem.{self.index.table} b WHERE {self._where}",
                self._params).fetchone()[0])  # type: ignore[index]
        return self._total

    def close(self) -> None:
        self._ranked = []
        self._snapshot.close()

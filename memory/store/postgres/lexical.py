"""Full-text search in PostgreSQL, ranked by BM25 as SQLite's FTS5 ranks it.

``ts_rank_cd`` has no inverse document frequency: a row repeating a word found
everywhere would outrank one holding the query's rare word. BM25 weighs each
word by its rarity, and computing it as FTS5 does (same k1, b and idf floor)
makes both backends put the same rows first. Its parts come from the index:
a word's document count from the GIN index, the row's term frequencies from
its ``tsvector`` positions, its length from ``n_words``, and the table's size
and mean length from ``tiermem.text_stats``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from tiermem.memory.store.postgres.tables import Scope, filter_sql
from tiermem.memory.store.records import RowFilter

#: FTS5's floor for the idf of a word in more than half of the rows.
IDF_FLOOR = 1e-6
#: Below this many rows, document frequencies are too coarse to call a word common.
PRUNE_MIN_ROWS = 50
#: How many matches the first read of a ranking fetches at least.
FIRST_READ = 64


def _tsquery(lexemes: Sequence[str], joiner: str) -> str:
    return f" {joiner} ".join("'" + lexeme.replace("'", "''").replace("\\", "\\\\") + "'"
                              for lexeme in lexemes)


class PgLexicalIndex:
    """The full-text search of one table of one agent."""

    def __init__(self, scope: Scope, table: str) -> None:
        self.scope, self.table = scope, table
        #: A row's length in words for BM25; a message's context counts (schema.py).
        self.length = "b.n_words + b.context_words" if table == "messages" else "b.n_words"

    def lexemes(self, terms: Sequence[str]) -> dict[str, list[str]]:
        """Each term's stemmed forms, as the index holds them."""
        rows = self.scope.conn.execute(
            "SELECT t, coalesce((SELECT array_agg(u.lexeme) FROM unnest(to_tsvector("
            "'tiermem.english_all', regexp_replace(t, '[^[:alnum:]]+', ' ', 'g'))) u), "
            "'{}') FROM unnest(%s::text[]) t", (list(terms),)).fetchall()
        return {str(t): list(lex) for t, lex in rows}

    def _document_counts(self, lexemes: Sequence[str]) -> dict[str, int]:
        """How many of the agent's rows hold each lexeme (the GIN index counts them)."""
        rows = self.scope.conn.execute(
            f"SELECT n, (SELECT count(*) FROM tiermem.{self.table} b WHERE b.agent_id = %s "
            f"AND b.tsv @@ q::tsquery) FROM unnest(%s::int[], %s::text[]) AS w(n, q)",
            (self.scope.agent, list(range(len(lexemes))),
             [_tsquery([lex], "|") for lex in lexemes])).fetchall()
        return {lexemes[int(n)]: int(count) for n, count in rows}

    def _weights(self, lexemes: Sequence[str]) -> tuple[list[float], float]:
        """Each lexeme's idf and the table's mean row length in words."""
        stats = self.scope.one("SELECT n_rows, n_words FROM tiermem.text_stats "
                               "WHERE agent_id = %s AND tab = %s", (self.table,))
        rows, words = (int(stats[0]), int(stats[1])) if stats else (0, 0)
        counts = self._document_counts(lexemes)
        idf = []
        for lex in lexemes:
            n = counts[lex]
            value = math.log((rows - n + 0.5) / (n + 0.5)) if rows else 0.0
            idf.append(value if value > 0 else IDF_FLOOR)
        return idf, (words / rows if rows else 0.0)

    def _query_parts(self, terms: Sequence[str], every_term: bool
                     ) -> tuple[str, list[str], list[float], float] | None:
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
        idf, mean = self._weights(lexemes)
        return query, lexemes, idf, mean

    def rank(self, terms: Sequence[str], filt: RowFilter,
             window: int | None = None) -> PgRanking:
        return PgRanking(self, self._query_parts(terms, False), filt, window)

    def scores(self, terms: Sequence[str], every_term: bool = False) -> dict[int, float]:
        parts = self._query_parts(terms, every_term)
        if parts is None:
            return {}
        ranking = PgRanking(self, parts, RowFilter(), None)
        return ranking.everything()

    def common_terms(self, terms: Sequence[str], rows: int) -> set[str]:
        if rows < PRUNE_MIN_ROWS or not terms:
            return set()
        half = rows // 2
        found = set()
        for term, lexemes in self.lexemes(terms).items():
            if not lexemes:
                continue
            # Counting stops past half: a word in most rows costs no full count.
            beyond = self.scope.value(
                f"SELECT count(*) FROM (SELECT 1 FROM tiermem.{self.table} b "
                f"WHERE b.agent_id = %s AND b.tsv @@ %s::tsquery LIMIT %s) m",
                (_tsquery(lexemes, "|"), half + 1))
            if int(beyond) > half:
                found.add(term)
        return found


class PgRanking:
    """One query's matches in BM25 order, read as deep as the caller needs.

    Reading deeper runs the ranking again with a larger limit (doubling), and
    the scores of particular rows are looked up by id, which PostgreSQL does
    through the primary key.
    """

    def __init__(self, index: PgLexicalIndex,
                 parts: tuple[str, list[str], list[float], float] | None,
                 filt: RowFilter, window: int | None) -> None:
        self.index = index
        self.exact = True
        self.found: dict[int, float] = {}
        self.best = 0.0
        self.cut = 0.0
        self._ranked: list[tuple[int, float]] = []
        self._exhausted = parts is None
        self._total: int | None = 0 if parts is None else None
        if parts is None:
            return
        query, lexemes, idf, mean = parts
        table = index.table
        where, params = filter_sql(filt, table)
        self._where = "b.agent_id = %s AND b.tsv @@ %s::tsquery" + (f" AND {where}"
                                                                     if where else "")
        self._params: list[Any] = [index.scope.agent, query, *params]
        self._score_params: list[Any] = [lexemes, idf, mean]
        if window is not None:
            count, oldest, newest = index.scope.conn.execute(
                f"SELECT count(*), min(id), max(id) FROM (SELECT b.id FROM tiermem.{table} b "
                f"WHERE {self._where} ORDER BY b.id DESC LIMIT %s) m",
                (*self._params, window + 1)).fetchone() or (0, None, None)
            if count == 0:
                self._exhausted, self._total = True, 0
                return
            if count > window:
                self.exact, self._total = False, window
                self._where += " AND b.id > %s"
            else:
                self._total = int(count)
                self._where += " AND b.id >= %s"
            self._where += " AND b.id <= %s"
            self._params += [oldest, newest]

    def _read(self, limit: int | None, ids: Sequence[int] | None = None
              ) -> list[tuple[int, float]]:
        where, params = self._where, list(self._params)
        if ids is not None:
            where += " AND b.id = ANY(%s)"
            params.append(list(ids))
        rows = self.index.scope.conn.execute(
            f"SELECT b.id, tiermem.bm25(b.tsv, {self.index.length}, %s::text[], %s::float8[], %s)"
            f" AS s "
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

"""Hybrid retrieval: SQLite FTS5 (BM25, Porter stemming) fused with FAISS dense search.

A row *matches* a query when it shares a content word with it (FTS5) or its
embedding is at least ``embedder.min_similarity`` from the query's. ``total``
counts every match that passes the filters, so callers can page.

Matches are ranked by a weighted sum of two normalised scores:

    score = (w_lex * lex + w_dense * dense) / (w_lex + w_dense)
    lex   = bm25 / best bm25 of the query                  (0 when the words do not match)
    dense = (cos - t) / max(best cos - t, t)               (0 below t = min_similarity)

The dense score is how far a row rises above the match threshold, relative to
the best match's rise. Below the threshold a row is unrelated and gets
nothing, so noise-level cosines never reorder BM25 results; the ``max(.., t)``
keeps a lone weak match (every match barely above the threshold) from
counting as a perfect one. Scores lie in (0, 1] and compare across tiers.

The ranking is exact at any page: every dense match is scored (with its BM25
looked up if the lexical list was not read that far), and the lexical list is
read until no unread row can outrank the last result asked for. So page N of a
search is always the Nth slice of one order.

Why not reciprocal rank fusion: ranks throw away how far ahead the best rows
are, and with a dense model much weaker than BM25 that costs more than fusion
gains. On LoCoMo (``tiermem eval locomo``, README "Evaluation") RRF with k=60
lost to BM25 alone at recall@10, while the weighted sum beat both of its parts.
RRF stays available as ``FusionWeights(method="rrf")`` (it fuses the top
``depth`` of each list, so it is not exact beyond that depth).

The dense query drops words that occur in more than half of the rows (in a
store of at least ``PRUNE_MIN_ROWS``; not when the caller passes its own query
vector): such a word, typically the name of the
person every message is from or about, gets no weight from BM25 but dominates
a sentence embedding of a short question, pulling in every row that mentions
the name instead of the ones on the question's topic.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from memory.embeddings import Embedder
from memory.errors import InvalidInputError
from memory.store import Store
from memory.validation import end_of_day, to_timestamp
from memory.vector_index import VectorIndex

RRF_K = 60
_MIN_SCORE = 1e-9
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
    """Content words of a query, lowercased, de-duplicated, in order."""
    seen: dict[str, None] = {}
    for word in _TERM.findall(text.lower()):
        if word not in STOPWORDS and (len(word) > 1 or word.isdigit()):
            seen.setdefault(word, None)
    return list(seen)


def _quoted(terms: Sequence[str]) -> str:
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def fts_query(text: str) -> str | None:
    """An FTS5 MATCH expression ORing the quoted content words, or None if there are none."""
    terms = query_terms(text)
    return _quoted(terms) if terms else None


@dataclass(frozen=True)
class FusionWeights:
    """How hybrid search ranks: the weight of each list, the method and the list depth.

    ``dense=0`` is lexical (BM25) only and ``lexical=0`` dense only; a list
    with weight 0 is not searched at all (nor counted in ``total``). ``method``
    is ``"convex"`` (the weighted sum of scores in the module docstring) or
    ``"rrf"`` (reciprocal ranks with ``rrf_k``). The defaults were tuned on
    LoCoMo's dev conversations; 0.5:0.5 to 0.7:0.3 measured within 0.01.
    ``prune_common`` drops words found in most rows from the dense query.
    """

    lexical: float = 0.6
    dense: float = 0.4
    method: str = "convex"
    rrf_k: int = RRF_K
    depth: int = 100
    prune_common: bool = True

    def __post_init__(self) -> None:
        if self.method not in ("convex", "rrf"):
            raise ValueError("FusionWeights.method must be 'convex' or 'rrf'")
        if self.lexical < 0 or self.dense < 0 or self.lexical + self.dense <= 0:
            raise ValueError("fusion weights must be non-negative and not both zero")


@dataclass(frozen=True)
class Ranked:
    """One fused match: its rowid and fused score."""

    id: int
    score: float


@dataclass(frozen=True)
class Filter:
    """An SQL condition on the base table (aliased ``b``) with its parameters."""

    sql: str = ""
    params: tuple[Any, ...] = ()


def common_terms(store: Store, table: str, fts_table: str, terms: Sequence[str]) -> set[str]:
    """The ``terms`` that occur in more than half of the rows of ``table``."""
    rows = int(store.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    if rows < PRUNE_MIN_ROWS or not terms:
        return set()
    half = rows // 2
    found = set()
    for term in terms:
        # LIMIT stops counting as soon as the answer is known, whatever the word's frequency.
        count = store.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM {fts_table} WHERE {fts_table} MATCH ? LIMIT ?)",
            (_quoted([term]), half + 1),
        ).fetchone()[0]
        if count > half:
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


def dense_query_text(store: Store, table: str, fts_table: str, query: str) -> str:
    """The text to embed for ``query``: without words common to most rows, if any remain."""
    terms = query_terms(query)
    common = common_terms(store, table, fts_table, terms)
    if not common or common.issuperset(terms):
        return query
    return without_words(query, common)


def lexical_query_text(
    store: Store, table: str, fts_table: str, query: str, weights: FusionWeights
) -> str:
    """The query for FTS5: without words found in most rows (when ``prune_common``).

    Such a word gets almost no BM25 weight, so it ranks nothing, yet it would
    make most rows matches to score, sort and count. Rows matching the other
    words keep their order, except where their BM25 ties to within FTS5's
    1e-6 idf floor: ties go by id. A lone word is kept whatever its frequency.
    """
    if not weights.prune_common or len(query_terms(query)) < 2:
        return query
    return dense_query_text(store, table, fts_table, query)


def date_filter(start: Any, end: Any) -> tuple[list[str], list[Any]]:
    """SQL conditions on ``b.created_at`` for an inclusive date range (a bare end date
    means the end of that day)."""
    lo, hi = to_timestamp(start, "start"), end_of_day(end, "end")
    if lo is not None and hi is not None and lo > hi:
        raise InvalidInputError("start is after end; swap them")
    parts: list[str] = []
    params: list[Any] = []
    if lo is not None:
        parts.append("b.created_at >= ?")
        params.append(lo)
    if hi is not None:
        parts.append("b.created_at <= ?")
        params.append(hi)
    return parts, params


def hybrid_search(
    store: Store,
    *,
    table: str,
    fts_table: str,
    vectors: VectorIndex | None,
    embedder: Embedder | None,
    query: str,
    limit: int,
    filt: Filter,
    weights: FusionWeights,
    query_vector: np.ndarray | None = None,
) -> tuple[list[Ranked], int]:
    """The best ``limit`` matches, fused, and the total number of matches.

    ``query_vector`` is used as given, instead of embedding ``query``: the
    caller then owns the dense query, and common words are not dropped.
    """
    match = fts_query(query)
    lexical = _Lexical(store, table, fts_table, match, filt) if (
        match is not None and weights.lexical > 0) else None
    try:
        dense, floor = _dense_matches(store, table, fts_table, vectors, embedder, query, filt,
                                      weights, query_vector)
        w_lex = weights.lexical if lexical is not None else 0.0
        w_dense = weights.dense if vectors is not None and embedder is not None and len(
            vectors) and weights.dense > 0 else 0.0
        span = max(max(dense.values()) - floor, floor) if dense else 0.0
        depth = max(limit, weights.depth)
        while True:
            scores = lexical.top(depth) if lexical is not None else {}
            if weights.method == "rrf":
                ranked = _rrf(list(scores), list(dense)[:depth], weights)
                break
            if lexical is not None and lexical.truncated:
                scores.update(lexical.scores_of([i for i in dense if i not in scores]))
            ranked = _weighted(scores, dense, floor, span, w_lex, w_dense)
            if lexical is None or not lexical.truncated:
                break
            # An unread row matches only the words (every dense match is scored), below the cut.
            bound = w_lex * lexical.cut / (lexical.best or 1.0) / (w_lex + w_dense)
            if len(ranked) >= limit and ranked[limit - 1].score > bound:
                break
            depth *= 4
        if lexical is None:
            return ranked[:limit], len(dense)
        rest = [i for i in dense if i not in lexical.found]
        if lexical.truncated:  # dense matches beyond the lexical cut may match the words too
            beyond = lexical.scores_of(rest)
            rest = [i for i in rest if i not in beyond]
        return ranked[:limit], lexical.total() + len(rest)
    finally:
        if lexical is not None:
            lexical.close()


def _dense_matches(
    store: Store, table: str, fts_table: str, vectors: VectorIndex | None,
    embedder: Embedder | None, query: str, filt: Filter, weights: FusionWeights,
    query_vector: np.ndarray | None,
) -> tuple[dict[int, float], float]:
    """Every row at least ``min_similarity`` from the query (rowid -> cosine, best first)."""
    if vectors is None or embedder is None or not len(vectors) or weights.dense <= 0:
        return {}, 0.0
    if query_vector is not None:
        qv = query_vector
    elif weights.prune_common:
        qv = embedder.embed_query(dense_query_text(store, table, fts_table, query))
    else:
        qv = embedder.embed_query(query)
    ids, sims = vectors.above(qv, embedder.min_similarity)
    dense = dict(zip(ids.tolist(), sims.tolist(), strict=True))
    if filt.sql and dense:
        dense = {i: dense[i] for i in _filter_ids(store, table, list(dense), filt)}
    return dense, max(embedder.min_similarity, 0.0)


class _Lexical:
    """The BM25 list of one query, read from one cursor as deep as needed.

    Without LIMIT, SQLite scores and sorts every match once; reading further
    is then nearly free, where re-running the query with a larger LIMIT would
    score everything again. (Measured at 100k rows: +20% for the first rows,
    against +100% for each re-run.) For the same reason the BM25 of rows below
    the cut is looked up by reading the rest of this cursor, not by a new
    ``rowid IN (...)`` query: FTS5 re-runs the whole match for each such id.
    """

    def __init__(self, store: Store, table: str, fts_table: str, match: str, filt: Filter) -> None:
        self.store, self.fts_table, self.match, self.filt = store, fts_table, match, filt
        # Every FTS row has its base row, so without a filter the join is only cost.
        self._from = (f"FROM {fts_table} f JOIN {table} b ON b.id = f.rowid"
                      f" WHERE {fts_table} MATCH ? AND ({filt.sql})" if filt.sql
                      else f"FROM {fts_table} f WHERE {fts_table} MATCH ?")
        self._cursor = store.execute(
            f"SELECT f.rowid, -bm25({fts_table}) {self._from} ORDER BY bm25({fts_table})",
            (match, *filt.params))
        self.found: dict[int, float] = {}  # rowid -> BM25 (higher is better), best first
        self.best = 0.0  # the best BM25 of all matches
        self.cut = 0.0  # the last BM25 read
        self._unread: dict[int, float] = {}  # drained from the cursor, not yet handed out
        self._exhausted = False
        self._total: int | None = None

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

    def total(self) -> int:
        if self._total is None:
            self._total = int(self.store.execute(
                f"SELECT count(*) {self._from}", (self.match, *self.filt.params)).fetchone()[0])
        return self._total

    def close(self) -> None:
        self._cursor.close()


def _weighted(
    lexical: dict[int, float], dense: dict[int, float], floor: float, span: float,
    w_lex: float, w_dense: float,
) -> list[Ranked]:
    """Rank the lexical and dense matches by the weighted sum of their normalised scores."""
    best = max(lexical.values(), default=0.0)
    total = w_lex + w_dense
    scores: dict[int, float] = {}
    for rowid in {**lexical, **dense}:
        lex = lexical.get(rowid, 0.0) / best if best > 0 else 0.0
        near = (dense[rowid] - floor) / span if rowid in dense and span > 0 else 0.0
        # A match at exactly the threshold still ranks above rows that do not match.
        scores[rowid] = max((w_lex * lex + w_dense * near) / total, _MIN_SCORE)
    ordered = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    return [Ranked(i, s) for i, s in ordered]


def _rrf(lexical: list[int], dense: list[int], weights: FusionWeights) -> list[Ranked]:
    scores: dict[int, float] = {}
    for rank, rowid in enumerate(lexical, start=1):
        scores[rowid] = scores.get(rowid, 0.0) + weights.lexical / (weights.rrf_k + rank)
    for rank, rowid in enumerate(dense, start=1):
        scores[rowid] = scores.get(rowid, 0.0) + weights.dense / (weights.rrf_k + rank)
    ordered = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    return [Ranked(i, s) for i, s in ordered]


def _filter_ids(store: Store, table: str, ids: Sequence[int], filt: Filter) -> list[int]:
    """Keep ``ids`` (in order) whose rows pass the filter."""
    allowed: set[int] = set()
    for start in range(0, len(ids), 900):
        chunk = list(ids[start : start + 900])
        marks = ",".join("?" * len(chunk))
        sql = f"SELECT b.id FROM {table} b WHERE b.id IN ({marks}) AND ({filt.sql})"
        allowed.update(r[0] for r in store.execute(sql, (*chunk, *filt.params)))
    return [i for i in ids if i in allowed]


def page_slice(ranked: list[Ranked], page: int, page_size: int) -> list[Ranked]:
    start = (page - 1) * page_size
    return ranked[start : start + page_size]

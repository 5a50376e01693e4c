"""Hybrid retrieval: SQLite FTS5 (BM25, Porter stemming) fused with FAISS dense search.

A row *matches* a query when it shares a content word with it (FTS5) or its
embedding is at least ``embedder.min_similarity`` from the query's. ``total``
counts every match that passes the filters, so callers can page.

With a ``window`` (recall passes one; archival does not), BM25 ranks only the
newest ``window`` rows that match the words, and ``total`` is then a lower
bound (``exact`` is False): there are more matches than were ranked. Scoring
and counting every match costs time in proportion to the matches (2.5 s at
1M messages for a word in most of them); finding the window is a walk down
the rowid-ordered posting lists with no scoring, and FTS5 seeks the BM25 query
straight to the window's rowid range. Below the window nothing changes:
ranking and totals are exact. BM25 keeps its idf and average length from the
whole table, so the window's rows are ranked as they would be among all
matches. Dense matches are not windowed; one older than the window is ranked
by its dense score alone, since its BM25 is not read.

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

Callers drop words that occur in more than half of the rows from the query
first (``lexical_query_text``, with ``prune_common``; in a store of at least
``PRUNE_MIN_ROWS``), and both lists use the pruned text: such a word,
typically the name of the person every message is from or about, gets no
weight from BM25 but dominates a sentence embedding of a short question,
pulling in every row that mentions the name instead of the ones on the
question's topic. A query vector passed by the caller is used as given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from memory.embeddings import Embedder
from memory.errors import InvalidInputError
from memory.lexical import (
    PRUNE_MIN_ROWS,
    STOPWORDS,
    BM25List,
    Filter,
    common_terms,
    dense_query_text,
    fts_query,
    lexical_query_text,
    query_terms,
    without_words,
)
from memory.store import Store
from memory.validation import end_of_day, to_timestamp
from memory.vector_index import VectorIndex

# The query-text helpers live in memory.lexical; callers may import them from here too.
__all__ = [
    "PRUNE_MIN_ROWS",
    "STOPWORDS",
    "Filter",
    "FusionWeights",
    "Ranked",
    "common_terms",
    "date_filter",
    "dense_query_text",
    "fts_query",
    "hybrid_search",
    "lexical_query_text",
    "page_slice",
    "query_terms",
    "without_words",
]

RRF_K = 60
_MIN_SCORE = 1e-9


@dataclass(frozen=True)
class FusionWeights:
    """How hybrid search ranks: the weight of each list, the method and the list depth.

    ``dense=0`` is lexical (BM25) only and ``lexical=0`` dense only; a list
    with weight 0 is not searched at all (nor counted in ``total``). ``method``
    is ``"convex"`` (the weighted sum of scores in the module docstring) or
    ``"rrf"`` (reciprocal ranks with ``rrf_k``). The defaults were tuned on
    LoCoMo's dev conversations; 0.5:0.5 to 0.7:0.3 measured within 0.01.
    ``prune_common`` drops words found in most rows from the query (``lexical_query_text``).
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
    window: int | None = None,
) -> tuple[list[Ranked], int, bool]:
    """The best ``limit`` matches, fused, the total number of matches, and whether it is exact.

    ``query_vector`` is used as given, instead of embedding ``query``: the
    caller then owns the dense query, and common words are not dropped.
    ``window`` bounds the lexical matches ranked (module docstring); the
    total is exact whenever no more than ``window`` rows match the words.
    """
    match = fts_query(query)
    lexical = BM25List(store, table, fts_table, match, filt, window) if (
        match is not None and weights.lexical > 0) else None
    try:
        dense, floor = _dense_matches(store, table, vectors, embedder, query, filt, weights,
                                      query_vector)
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
            ranked = _weighted(scores, dense, floor, span, w_lex, w_dense, limit)
            if lexical is None or not lexical.truncated:
                break
            # An unread row matches only the words (every dense match is scored), below the cut.
            bound = w_lex * lexical.cut / (lexical.best or 1.0) / (w_lex + w_dense)
            if len(ranked) >= limit and ranked[limit - 1].score > bound:
                break
            depth *= 4
        if lexical is None:
            return ranked[:limit], len(dense), True
        rest = [i for i in dense if i not in lexical.found]
        if lexical.truncated:  # dense matches beyond the lexical cut may match the words too
            beyond = lexical.scores_of(rest)
            rest = [i for i in rest if i not in beyond]
        # Past the window, a dense match may also match the words: counted once, so a lower bound.
        return ranked[:limit], lexical.total() + len(rest), lexical.exact
    finally:
        if lexical is not None:
            lexical.close()


def _dense_matches(
    store: Store, table: str, vectors: VectorIndex | None, embedder: Embedder | None,
    query: str, filt: Filter, weights: FusionWeights, query_vector: np.ndarray | None,
) -> tuple[dict[int, float], float]:
    """Every row at least ``min_similarity`` from the query (rowid -> cosine, best first)."""
    if vectors is None or embedder is None or not len(vectors) or weights.dense <= 0:
        return {}, 0.0
    # The caller has pruned the query already (module docstring).
    qv = query_vector if query_vector is not None else embedder.embed_query(query)
    ids, sims = vectors.above(qv, embedder.min_similarity)
    dense = dict(zip(ids.tolist(), sims.tolist(), strict=True))
    if filt.below is not None:
        dense = {i: c for i, c in dense.items() if i < filt.below}
    if filt.sql and dense:
        dense = {i: dense[i] for i in _filter_ids(store, table, list(dense), filt)}
    return dense, max(embedder.min_similarity, 0.0)


def _weighted(
    lexical: dict[int, float], dense: dict[int, float], floor: float, span: float,
    w_lex: float, w_dense: float, limit: int,
) -> list[Ranked]:
    """The best ``limit`` matches by the weighted sum of their normalised scores (ties by id).

    Vectorised: a search scores every dense match, thousands in a large
    store, and a Python loop over them cost about 1 ms a search.
    """
    lex_ids = np.fromiter(lexical, dtype=np.int64, count=len(lexical))
    lex_bm25 = np.fromiter(lexical.values(), dtype=np.float64, count=len(lexical))
    dense_ids = np.fromiter(dense, dtype=np.int64, count=len(dense))
    dense_cos = np.fromiter(dense.values(), dtype=np.float64, count=len(dense))
    ids = np.union1d(lex_ids, dense_ids)  # sorted, so a stable sort breaks ties by id
    lex = np.zeros(len(ids))
    best = float(lex_bm25.max()) if len(lex_bm25) else 0.0
    if best > 0:
        lex[np.searchsorted(ids, lex_ids)] = lex_bm25 / best
    near = np.zeros(len(ids))
    if span > 0:
        near[np.searchsorted(ids, dense_ids)] = (dense_cos - floor) / span
    # A match at exactly the threshold still ranks above rows that do not match.
    scores = np.maximum((w_lex * lex + w_dense * near) / (w_lex + w_dense), _MIN_SCORE)
    order = np.argsort(-scores, kind="stable")[:limit]
    return [Ranked(int(i), float(v)) for i, v in zip(ids[order], scores[order], strict=True)]


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

"""Hybrid retrieval: SQLite FTS5 (BM25, Porter stemming) fused with FAISS dense search.

A row *matches* a query when it shares a content word with it (FTS5) or its
embedding is at least ``embedder.min_similarity`` from the query's. ``total``
counts every match that passes the filters, so callers can page.

Matches are ranked by a weighted convex combination of the two scores, each
divided by the best score of its list:

    score = (w_lex * bm25 / max_bm25 + w_dense * cos / max_cos) / (w_lex + w_dense)

Candidates are the top ``depth`` rows of each list; a candidate from one list
gets its real score in the other (its BM25 if it matches the words, its cosine
if it has a vector), so the fused order does not depend on which list found it.
Scores lie in (0, 1] and compare across tiers.

Why not reciprocal rank fusion: ranks throw away how far ahead the best rows
are, and with a dense model much weaker than BM25 that costs more than fusion
gains. On LoCoMo (``tiermem eval locomo``, README "Evaluation") RRF with k=60
lost to BM25 alone at recall@10 at every weight tried, while the convex
combination beat both of its parts. RRF stays available as
``FusionWeights(method="rrf")``.

The dense query drops words that occur in more than half of the rows (in a
store of at least ``PRUNE_MIN_ROWS``): such a word, typically the name of the
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
from memory.store import Store
from memory.vector_index import VectorIndex

RRF_K = 60
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
    is ``"convex"`` (scores, see the module docstring) or ``"rrf"``
    (reciprocal ranks with ``rrf_k``).
    ``prune_common`` drops words found in most rows from the dense query.
    """

    lexical: float = 1.0
    dense: float = 1.0
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

    ``query_vector``, the embedding of ``query``, saves embedding it again; it
    is not used when the dense query drops common words.

    The convex ranking is exact: every dense match is scored, and the lexical
    list is read deeper until no row below its cut could outrank the
    ``limit``-th result, so page N of a search is always the Nth slice of one
    order. (RRF fuses the top ``depth`` of each list and is not exact beyond it.)
    """
    match = fts_query(query)
    lexical = _Lexical(store, table, fts_table, match, filt) if (
        match is not None and weights.lexical > 0) else None

    dense: dict[int, float] = {}  # every dense match: rowid -> cosine, best first
    qv: np.ndarray | None = None
    floor = 0.0
    if vectors is not None and embedder is not None and len(vectors) and weights.dense > 0:
        text = dense_query_text(store, table, fts_table, query) if weights.prune_common else query
        qv = embedder.embed_query(text) if query_vector is None or text != query else query_vector
        floor = max(embedder.min_similarity, 0.0)
        ids, sims = vectors.above(qv, embedder.min_similarity)
        dense = dict(zip(ids.tolist(), sims.tolist(), strict=True))
        if filt.sql and dense:
            dense = {i: dense[i] for i in _filter_ids(store, table, list(dense), filt)}

    # A list that was not searched weighs nothing, so scores stay in (0, 1].
    w_lex = weights.lexical if lexical is not None else 0.0
    w_dense = weights.dense if qv is not None else 0.0
    # With no dense match at all, no row is related to the query: the dense list adds nothing.
    top_cos = max(max(dense.values()), floor) if dense else 0.0
    depth = max(limit, weights.depth)
    while True:
        scores = lexical.top(depth) if lexical is not None else {}
        if weights.method == "rrf":
            ranked = _rrf(list(scores), list(dense)[:depth], weights)
            break
        if lexical is not None and lexical.truncated:
            scores.update(lexical.scores_of([i for i in dense if i not in scores]))
        cosines = dict(dense)
        if qv is not None and vectors is not None:
            cosines.update(_cosines(vectors, [i for i in scores if i not in dense], qv))
        ranked = _convex(scores, cosines, set(dense), top_cos, w_lex, w_dense)
        if lexical is None or not lexical.truncated:
            break
        # Unread rows are below the lexical cut and, not being dense matches, below the floor.
        cut = lexical.cut / lexical.best if lexical.best > 0 else 0.0
        bound = (w_lex * cut + w_dense * (floor / top_cos if top_cos > 0 else 0.0)) / (
            w_lex + w_dense)
        if len(ranked) >= limit and ranked[limit - 1].score > bound:
            break
        depth *= 4

    lexical_total = 0
    if lexical is not None:
        lexical_total = lexical.total()
        lexical.close()
    if lexical is None:
        dense_only = len(dense)
    elif not lexical.truncated:
        dense_only = sum(i not in lexical.found for i in dense)
    else:
        beyond = lexical.scores_of([i for i in dense if i not in lexical.found])
        dense_only = sum(i not in lexical.found and i not in beyond for i in dense)
    return ranked[:limit], lexical_total + dense_only


class _Lexical:
    """The BM25 list of one query, read from one cursor as deep as needed.

    Without LIMIT, SQLite scores and sorts every match once; reading further
    is then nearly free, where re-running the query with a larger LIMIT would
    score everything again. (Measured at 100k rows: +20% for the first rows,
    against +100% for each re-run.)
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
        self.truncated = True  # rows remain unread
        self.best = 0.0  # the best BM25 of all matches
        self.cut = 0.0  # the last BM25 read
        self._extra: dict[int, float] = {}
        self._total: int | None = None

    def top(self, depth: int) -> dict[int, float]:
        """The best ``depth`` matches (all of them if fewer)."""
        need = depth - len(self.found)
        if need > 0 and self.truncated:
            rows = self._cursor.fetchmany(need)
            if rows and not self.found:
                self.best = float(rows[0][1])
            self.found.update((int(r[0]), float(r[1])) for r in rows)
            if rows:
                self.cut = float(rows[-1][1])
            if len(rows) < need:
                self.truncated = False
                self._total = len(self.found)
                self._cursor.close()
        return dict(self.found)

    def scores_of(self, ids: Sequence[int]) -> dict[int, float]:
        """BM25 of those ``ids`` (not yet read) that match the words."""
        wanted = [i for i in ids if i not in self._extra]
        if wanted:
            self._extra.update(_bm25_of(self.store, self.fts_table, self.match, wanted))
        return {i: self._extra[i] for i in ids if i in self._extra}

    def total(self) -> int:
        if self._total is None:
            self._total = int(self.store.execute(
                f"SELECT count(*) {self._from}", (self.match, *self.filt.params)).fetchone()[0])
        return self._total

    def close(self) -> None:
        self._cursor.close()


def _convex(
    lexical: dict[int, float],
    cosines: dict[int, float],
    dense: set[int],
    top_cos: float,
    w_lex: float,
    w_dense: float,
) -> list[Ranked]:
    """Rank the lexical and dense matches by the weighted sum of their normalised scores."""
    # The normalisers do not depend on how deep the lists were read, so scores are stable.
    top_lex = max(lexical.values(), default=0.0)
    scores: dict[int, float] = {}
    for rowid in {**lexical, **dict.fromkeys(dense)}:
        lex = lexical.get(rowid, 0.0) / top_lex if top_lex > 0 else 0.0
        cos = max(cosines.get(rowid, 0.0), 0.0) / top_cos if top_cos > 0 else 0.0
        scores[rowid] = (w_lex * lex + w_dense * cos) / (w_lex + w_dense)
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


def _cosines(vectors: VectorIndex, ids: Sequence[int], qv: np.ndarray) -> dict[int, float]:
    """Cosine to ``qv`` of each row in ``ids`` that has a vector (e.g. tool messages do not)."""
    if not ids:
        return {}
    query = np.asarray(qv, dtype=np.float32).reshape(-1)
    try:
        matrix = vectors.index.reconstruct_batch(np.asarray(ids, dtype=np.int64))
    except RuntimeError:  # some row has no vector: go one by one
        found: dict[int, float] = {}
        for rowid in ids:
            try:
                found[rowid] = float(np.dot(vectors.index.reconstruct(int(rowid)), query))
            except RuntimeError:
                continue
        return found
    return dict(zip(ids, (matrix @ query).tolist(), strict=True))


def _filter_ids(store: Store, table: str, ids: Sequence[int], filt: Filter) -> list[int]:
    """Keep ``ids`` (in order) whose rows pass the filter."""
    allowed: set[int] = set()
    for start in range(0, len(ids), 900):
        chunk = list(ids[start : start + 900])
        marks = ",".join("?" * len(chunk))
        sql = f"SELECT b.id FROM {table} b WHERE b.id IN ({marks}) AND ({filt.sql})"
        allowed.update(r[0] for r in store.execute(sql, (*chunk, *filt.params)))
    return [i for i in ids if i in allowed]


def _bm25_of(store: Store, fts_table: str, match: str, ids: Sequence[int]) -> dict[int, float]:
    """BM25 (higher is better) of those ``ids`` that match ``match``."""
    found: dict[int, float] = {}
    for start in range(0, len(ids), 900):
        chunk = list(ids[start : start + 900])
        marks = ",".join("?" * len(chunk))
        sql = (f"SELECT rowid, -bm25({fts_table}) FROM {fts_table}"
               f" WHERE {fts_table} MATCH ? AND rowid IN ({marks})")
        found.update((int(r[0]), float(r[1])) for r in store.execute(sql, (match, *chunk)))
    return found


def page_slice(ranked: list[Ranked], page: int, page_size: int) -> list[Ranked]:
    start = (page - 1) * page_size
    return ranked[start : start + page_size]

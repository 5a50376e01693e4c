"""BM25 of words held in memory, as FTS5's ``bm25()`` computes it, and the ranking it gives.

``TermCache`` (memory/store/sqlite/lexical_cache.py) holds each word's rows
and counts and every row's length; the arithmetic on them is here.

The scores are FTS5's ``bm25()`` bit for bit. It adds, phrase by phrase in
query order, ``idf * (f * (k1 + 1)) / (f + k1 * (1 - b + b * D / avgdl))``
with ``idf = log((N - hits + 0.5) / (hits + 0.5))`` (at least 1e-6), where
``N`` and the total length behind ``avgdl`` are FTS5's averages record and
``D`` is the row's length from its docsize table; numpy performs the same
IEEE operations in the same order, and a phrase a row lacks adds exactly 0.0
in both. tests/test_lexical_cache.py holds it to ``bm25()``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

#: FTS5's bm25() constants (fts5_aux.c).
K1, B = 1.2, 0.75


def positions(ids: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each of ``rows`` is in the ascending ``ids`` (a valid index, or 0), and which
    of them are there."""
    if not len(ids):
        return np.zeros(len(rows), dtype=np.int64), np.zeros(len(rows), dtype=bool)
    at = np.minimum(np.searchsorted(ids, rows), len(ids) - 1)
    return at, ids[at] == rows


def phrase_scores(rows: int, tokens_total: int, hits: int, counts: np.ndarray,
                  lengths: np.ndarray) -> np.ndarray:
    """One phrase's share of the BM25 of rows holding it ``counts`` times, of those
    ``lengths``, in an index of ``rows`` rows and ``tokens_total`` tokens: fts5_aux.c's
    expression, operation for operation."""
    idf = math.log((rows - hits + 0.5) / (hits + 0.5))
    if idf <= 0.0:
        idf = 1e-6
    avgdl = float(tokens_total) / float(rows)
    return idf * ((counts * (K1 + 1.0)) / (counts + K1 * (1 - B + B * lengths / avgdl)))


class CachedBM25:
    """memory.store.contract.LexicalRanking over scores computed by ``TermCache.scores``:
    every match scored, handed out best first (ties by id), as deep as asked."""

    exact = True

    def __init__(self, ids: np.ndarray, scores: np.ndarray) -> None:
        self._ids, self._scores = ids, scores
        self.found: dict[int, float] = {}
        self.best = float(scores.max()) if len(scores) else 0.0
        self.cut = 0.0

    @property
    def truncated(self) -> bool:
        return len(self.found) < len(self._ids)

    def top(self, depth: int) -> dict[int, float]:
        if depth > len(self.found) and self.truncated:
            scores = self._scores
            if depth < len(scores):
                # Every row scoring at least the depth-th score, ties included, so that the
                # stable sort below breaks them by id as a full sort would.
                at_least = -np.partition(-scores, depth - 1)[depth - 1]
                chosen = np.flatnonzero(scores >= at_least)
            else:
                chosen = np.arange(len(scores))
            order = chosen[np.argsort(-scores[chosen], kind="stable")][:depth]
            for i in order[len(self.found):].tolist():
                self.found[int(self._ids[i])] = self.cut = float(scores[i])
        return dict(self.found)

    def scores_of(self, ids: Sequence[int]) -> dict[int, float]:
        wanted = np.asarray([i for i in ids if i not in self.found], dtype=np.int64)
        at = np.minimum(np.searchsorted(self._ids, wanted), max(len(self._ids) - 1, 0))
        hit = (self._ids[at] == wanted) if len(self._ids) else np.zeros(len(wanted), bool)
        return dict(zip(wanted[hit].tolist(), self._scores[at[hit]].tolist(), strict=True))

    def everything(self) -> dict[int, float]:
        return self.top(len(self._ids))

    def total(self) -> int:
        return len(self._ids)

    def close(self) -> None:
        pass

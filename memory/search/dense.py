"""The dense side of hybrid search: a query's matches in meaning (memory.search.fusion).

Every row at least ``min_similarity`` from the query, or the ``cap`` nearest when
the list is capped (then ``cut`` bounds every row left out, and word matches the
list missed are looked up one by one); and, when too few rows clear the threshold,
the ``nearest`` rows down to the embedder's ``near_similarity``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from tiermem.memory.embed.embeddings import Embedder, near_similarity
from tiermem.memory.store.contract import VectorIndex
from tiermem.memory.store.records import RowFilter

#: Those of some ids (in order) whose rows pass a filter (``PassageStore.passing``).
Passing = Callable[[Sequence[int], RowFilter], list[int]]

@dataclass
class DenseMatches:
    """The dense matches of one query: all of them, or the nearest when ``cut`` is set.

    ``cut`` bounds the similarity of every row not kept when more rows may
    match (a capped list).
    """

    matches: dict[int, float]  # rowid -> cosine, best first
    floor: float
    cut: float | None = None
    query: np.ndarray | None = None
    threshold: float = 0.0
    #: Whether the best match passing the filters is known (it is in ``matches``).
    kept_nearest: bool = True
    _looked_up: set[int] = field(default_factory=set)

    def score_words(self, vectors: VectorIndex, scores: dict[int, float]) -> None:
        """Add the exact similarity of word matches that the capped list left out."""
        assert self.query is not None
        missing = [i for i in scores if i not in self.matches and i not in self._looked_up]
        self._looked_up.update(missing)
        for rowid, cos in vectors.similarities(missing, self.query).items():
            if cos >= self.threshold:
                self.matches[rowid] = cos


def dense_matches(
    passing: Passing, vectors: VectorIndex | None, embedder: Embedder | None,
    query: str, filt: RowFilter, dense_weight: float, query_vector: np.ndarray | None,
    cap: int | None = None, nearest: int = 0,
) -> DenseMatches:
    """Rows at least ``min_similarity`` from the query: every one, or the ``cap`` nearest;
    and, with ``nearest``, that many nearest rows down to ``near_similarity``."""
    if vectors is None or embedder is None or not len(vectors) or dense_weight <= 0:
        return DenseMatches({}, 0.0)
    # The caller has pruned the query already (module docstring).
    qv = query_vector if query_vector is not None else embedder.embed_query(query)
    threshold = embedder.min_similarity
    cut = None
    listed: tuple[np.ndarray, np.ndarray] | None = None  # a capped list's nearest rows
    if cap is None:
        ids, sims = vectors.above(qv, threshold)
    else:
        ids, sims, others = vectors.nearest(qv, cap)
        if others >= threshold:
            cut = others
        if nearest and len(sims) >= nearest and sims[nearest - 1] >= others:
            listed = ids[:nearest], sims[:nearest]
        keep = sims >= threshold
        ids, sims = ids[keep], sims[keep]
    dense = dict(zip(ids.tolist(), sims.tolist(), strict=True))
    if filt.below is not None:
        dense = {i: c for i, c in dense.items() if i < filt.below}
    if filt.on_rows and dense:
        dense = {i: dense[i] for i in passing(list(dense), filt)}
    low = near_similarity(embedder)
    if nearest > len(dense) and cut is None and low < threshold:
        # Every row above the threshold is here, and too few: add the nearest below it.
        near = nearest_rows(passing, vectors, qv, filt, nearest, low, listed)
        if len(near) > len(dense):
            lowest = min(near.values())
            return DenseMatches(near, max(lowest, 0.0), None, qv, lowest)
    # The best row passing the filters is known if a kept one is at least as near as any
    # row left out could be.
    kept = cut is None or (bool(dense) and max(dense.values()) >= cut)
    return DenseMatches(dense, max(threshold, 0.0), cut, qv, threshold, kept_nearest=kept)


def nearest_rows(passing: Passing, vectors: VectorIndex, qv: np.ndarray, filt: RowFilter,
                  nearest: int, low: float,
                  listed: tuple[np.ndarray, np.ndarray] | None = None) -> dict[int, float]:
    """The ``nearest`` rows passing ``filt`` that are nearest to ``qv``, of those at least
    ``low`` from it, best first (every row tied with the last one kept). ``listed`` holds
    the nearest rows when a capped search has read them already (no second scan)."""
    if filt.below is None and not filt.on_rows:
        ids, sims = listed if listed is not None else vectors.search(qv, nearest)
        found = {i: c for i, c in zip(ids.tolist(), sims.tolist(), strict=True) if c >= low}
    else:
        found = _nearest_passing(passing, vectors, qv, filt, nearest, low)
    if len(found) > nearest:
        last = sorted(found.values(), reverse=True)[nearest - 1]
        found = {i: c for i, c in found.items() if c >= last}
    return dict(sorted(found.items(), key=lambda item: (-item[1], item[0])))


#: A filtered search for the nearest rows first reads this many times the rows it wants,
#: then that many times more, before it reads every row above the near similarity.
FILTERED_READ = 16


def _nearest_passing(passing: Passing, vectors: VectorIndex, qv: np.ndarray,
                     filt: RowFilter, nearest: int, low: float) -> dict[int, float]:
    """The rows passing ``filt`` at least ``low`` from ``qv``: enough of them to hold the
    ``nearest`` and every row tied with the last of those, or all of them.

    The rows the filters pass may be anywhere, but a filter passing a fair share of
    the rows has ``nearest`` of them among the first few hundred nearest. Read at once,
    every row above ``low`` is a large part of a big store (MiniLM puts most rows on
    one subject above half its threshold), and each would be looked up by the filter.
    Through an approximate index (HNSW) the lists, and the bound on the rows they leave
    out, are the index's: as approximate as the unfiltered nearest rows.
    """
    checked: set[int] = set()
    found: dict[int, float] = {}
    k = nearest * FILTERED_READ
    for _ in range(2):
        if k >= len(vectors):
            break
        ids, sims, others = vectors.nearest(qv, k)
        fresh = [(i, c) for i, c in zip(ids.tolist(), sims.tolist(), strict=True)
                 if c >= low and i not in checked]
        checked.update(ids.tolist())
        found.update(_passing_of(passing, fresh, filt))
        if others < low:  # every row at least ``low`` from the query has been read
            return found
        if len(found) >= nearest and others < sorted(found.values(), reverse=True)[nearest - 1]:
            return found  # no row left out could be as near as the last one kept
        k *= FILTERED_READ
    ids, sims = vectors.above(qv, low)
    fresh = [(i, c) for i, c in zip(ids.tolist(), sims.tolist(), strict=True)
             if i not in checked]
    found.update(_passing_of(passing, fresh, filt))
    return found


def _passing_of(passing: Passing, rows: list[tuple[int, float]],
                filt: RowFilter) -> dict[int, float]:
    found = {i: c for i, c in rows if filt.below is None or i < filt.below}
    if filt.on_rows and found:
        found = {i: found[i] for i in passing(list(found), filt)}
    return found

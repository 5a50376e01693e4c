"""Fused scores: how hybrid search (memory/search/fusion.py) ranks the matches of its two
lists, BM25 and dense, on one scale.

Matches are ranked by a weighted sum of two normalised scores:

    score = (w_lex * lex + w_dense * dense) / (w_lex + w_dense)
    lex   = bm25 / best bm25 of the query                  (0 when the words do not match)
    dense = (cos - t) / max(best cos - t, t)               (0 below t = min_similarity)

The dense score is how far a row rises above the match threshold, relative to
the best match's rise. Below the threshold a row is unrelated and gets
nothing, so noise-level cosines never reorder BM25 results; the ``max(.., t)``
keeps a lone weak match (every match barely above the threshold) from
counting as a perfect one. Scores lie in (0, 1] and compare across tiers.

Why not reciprocal rank fusion: ranks throw away how far ahead the best rows
are, and with a dense model much weaker than BM25 that costs more than fusion
gains. On LoCoMo (``tiermem eval locomo``, README "Evaluation") RRF with k=60
lost to BM25 alone at recall@10, while the weighted sum beat both of its parts.
RRF stays available as ``FusionWeights(method="rrf")`` (it fuses the top
``depth`` of each list, so it is not exact beyond that depth).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import isnan

import numpy as np

from tiermem.memory.search.fusion_weights import FusionWeights

MIN_SCORE = 1e-9


@dataclass(frozen=True)
class Ranked:
    """One fused match: its rowid and fused score, and the two scores it was fused from.

    ``relevance`` is the row's BM25 (0 when it was not scored on words) and
    ``similarity`` its cosine (None when it was not a match in meaning): a
    search across tiers re-scores its candidates from them on one scale
    (memory.search.query).
    """

    id: int
    score: float
    relevance: float = 0.0
    similarity: float | None = None


def weighted_ranking(
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
    lex_at, dense_at = np.searchsorted(ids, lex_ids), np.searchsorted(ids, dense_ids)
    lex = np.zeros(len(ids))
    best = float(lex_bm25.max()) if len(lex_bm25) else 0.0
    if best > 0:
        lex[lex_at] = lex_bm25 / best
    near = np.zeros(len(ids))
    if span > 0:
        near[dense_at] = (dense_cos - floor) / span
    # A match at exactly the threshold still ranks above rows that do not match.
    scores = np.maximum((w_lex * lex + w_dense * near) / (w_lex + w_dense), MIN_SCORE)
    order = np.argsort(-scores, kind="stable")[:limit]
    relevance = np.zeros(len(ids))
    relevance[lex_at] = lex_bm25
    cosine = np.full(len(ids), np.nan)
    cosine[dense_at] = dense_cos
    # The chosen rows leave numpy as Python lists at once: indexing the arrays element by
    # element cost as much as the rest of the ranking.
    return [Ranked(i, s, r, None if isnan(c) else c) for i, s, r, c in zip(
        ids[order].tolist(), scores[order].tolist(), relevance[order].tolist(),
        cosine[order].tolist(), strict=True)]


def rank_scored(
    lexical: dict[int, float], dense: dict[int, float], threshold: float,
    weights: FusionWeights, *, lexical_on: bool, dense_on: bool,
) -> list[Ranked]:
    """Every match of a small set scored in full, fused as ``hybrid_search`` fuses, best first.

    ``lexical`` maps rowids to BM25, ``dense`` to cosines at or above
    ``threshold``; ``lexical_on`` and ``dense_on`` say which lists were
    searched, as a list with no rows still counts in the weights.
    """
    if not lexical and not dense:
        return []
    if weights.method == "rrf":
        return rrf_ranking(sorted(lexical, key=lambda i: (-lexical[i], i)),
                           sorted(dense, key=lambda i: (-dense[i], i)), weights)
    floor = max(threshold, 0.0)
    span = max(max(dense.values()) - floor, floor) if dense else 0.0
    w_lex = weights.lexical if lexical_on else 0.0
    w_dense = weights.dense if dense_on else 0.0
    return weighted_ranking(lexical, dense, floor, span, w_lex, w_dense,
                            len(lexical.keys() | dense))


def rrf_ranking(lexical: list[int], dense: list[int], weights: FusionWeights) -> list[Ranked]:
    """Reciprocal rank fusion of two lists of rowids, each best first (ties by id)."""
    scores: dict[int, float] = {}
    for rank, rowid in enumerate(lexical, start=1):
        scores[rowid] = scores.get(rowid, 0.0) + weights.lexical / (weights.rrf_k + rank)
    for rank, rowid in enumerate(dense, start=1):
        scores[rowid] = scores.get(rowid, 0.0) + weights.dense / (weights.rrf_k + rank)
    ordered = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    return [Ranked(i, s) for i, s in ordered]

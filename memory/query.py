"""Search across all three tiers: core's matches first, then archival and recall fused.

Owns ``HierarchicalMemory.query``. A core fact *matches* a query as a row of
any tier does (memory.search): it shares a content word with it, or its
embedding is at least ``embedder.min_similarity`` from the query's. Every
matching core fact is returned, best first, ahead of other tiers' hits; if
more than ``k`` match, the ``k`` best-scoring fill the result. The rest of the
``k`` slots go to the best archival and recall hits on one scale. Core facts
are scored with the same hybrid formula as the other tiers, from their BM25
among core's matches and the cosine of their text's embedding, which is kept
in memory (core is bounded) and recomputed only when a fact's text changes.

With ``touch``, returned facts count as accessed, or archived ones as hits
toward promotion (memory.lifecycle). The hierarchy validates the query first.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from memory.embeddings import Embedder
from memory.search import fts_query, rank_scored
from memory.types import Fact, Hit

if TYPE_CHECKING:
    from memory.hierarchy import HierarchicalMemory


class CoreVectors:
    """Embeddings of the facts in core, by id, each kept while the fact's text is unchanged."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._keys: list[tuple[int, str]] = []
        self._matrix = np.zeros((0, embedder.dim), dtype=np.float32)

    def matrix(self, facts: Sequence[Fact]) -> np.ndarray:
        """One row per fact of ``facts``, in order; only new or edited texts are embedded."""
        keys = [(f.id, f.text) for f in facts]
        if keys == self._keys:
            return self._matrix
        known = dict(zip(self._keys, self._matrix, strict=True))
        missing = [key for key in keys if key not in known]
        if missing:
            fresh = self.embedder.embed_documents([text for _, text in missing])
            known.update(zip(missing, fresh, strict=True))
        self._keys = keys
        self._matrix = (np.stack([known[key] for key in keys]) if keys
                        else np.zeros((0, self.embedder.dim), dtype=np.float32))
        return self._matrix


def query_tiers(memory: HierarchicalMemory, q: str, k: int, touch: bool) -> list[Hit]:
    """Core's matching facts (at most ``k``), then the best other hits up to ``k`` in all."""
    core_hits = _core_hits(memory, q)[:k]
    in_core = {h.fact_id for h in core_hits}
    # An archived passage of a fact listed from core is dropped below; ask for that many more.
    archival = memory.archival_search(q, k=k + len(core_hits))
    recall = memory.recall.search(q, k=k)
    others = [h for h in archival.hits if h.fact_id is None or h.fact_id not in in_core]
    others += recall.hits
    others.sort(key=lambda h: -h.score)
    hits = core_hits + others[: k - len(core_hits)]
    if touch:
        with memory._write():
            for hit in hits:
                fact = memory.core.load(hit.fact_id) if hit.fact_id is not None else None
                if fact is None:
                    continue
                if fact.tier == "core":
                    memory.lifecycle.touch(fact)
                else:
                    memory.lifecycle.archival_hit(fact)
    return hits


def _core_hits(memory: HierarchicalMemory, q: str) -> list[Hit]:
    """Every core fact that matches ``q``, scored as hybrid search scores, best first."""
    if not len(memory.core):
        return []
    fusion = memory.fusion
    match = fts_query(q) if fusion.lexical > 0 else None
    lexical: dict[int, float] = {}
    if match is not None:
        # Core is in memory, so its rows are picked here: a join on the tier cost 8 ms a query.
        rows = memory.store.execute(
            "SELECT rowid, -bm25(facts_fts) FROM facts_fts WHERE facts_fts MATCH ?", (match,))
        lexical = {rowid: relevance for rowid, relevance in rows if rowid in memory.core}
    dense: dict[int, float] = {}
    embedder = memory.embedder
    if fusion.dense > 0:
        facts = list(memory.core)
        cosines = memory.core_vectors.matrix(facts) @ embedder.embed_query(q)
        dense = {f.id: float(c) for f, c in zip(facts, cosines, strict=True)
                 if c >= embedder.min_similarity}
    ranked = rank_scored(lexical, dense, embedder.min_similarity, fusion,
                         lexical_on=match is not None, dense_on=fusion.dense > 0)
    hits = []
    for r in ranked:
        fact = memory.core.get(r.id)
        if fact is not None:
            hits.append(Hit(text=fact.text, tier="core", score=r.score,
                            created_at=fact.created_at, id=fact.id, fact_id=fact.id,
                            durability=fact.durability))
    return hits

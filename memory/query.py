"""Search across all three tiers: one ranking of core, archival and recall hits.

Owns ``HierarchicalMemory.query``: core's full-text hits scored on the scale
of memory.search's hybrid scores, the merge with archival and recall, and the
accesses and promotion hits that returned facts count as (memory.lifecycle).
The hierarchy validates the query first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memory.search import fts_query
from memory.types import Hit

if TYPE_CHECKING:
    from memory.hierarchy import HierarchicalMemory


def query_tiers(memory: HierarchicalMemory, q: str, k: int, touch: bool) -> list[Hit]:
    """The best ``k`` hits of all tiers, core's first; with ``touch``, count them as used."""
    core_hits = _core_hits(memory, q, k)
    archival = memory.archival_search(q, k=k)
    recall = memory.recall.search(q, k=k)
    in_core = {h.fact_id for h in core_hits}
    candidates = core_hits + [
        h for h in archival.hits if h.fact_id is None or h.fact_id not in in_core
    ] + recall.hits
    best = sorted(candidates, key=lambda h: -h.score)[:k]
    hits = [h for h in best if h.tier == "core"] + [h for h in best if h.tier != "core"]
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


def _core_hits(memory: HierarchicalMemory, q: str, k: int) -> list[Hit]:
    match = fts_query(q)
    if match is None or not len(memory.core):
        return []
    rows = memory.store.execute(
        "SELECT f.rowid, -bm25(facts_fts) FROM facts_fts f JOIN facts x ON x.id = f.rowid"
        " WHERE facts_fts MATCH ? AND x.tier = 'core' ORDER BY bm25(facts_fts) LIMIT ?",
        (match, k),
    ).fetchall()
    if not rows:
        return []
    best = max(rows[0][1], 1e-9)
    # The lexical share of the hybrid score, so core compares with the other tiers.
    fusion = memory.fusion
    share = fusion.lexical / (fusion.lexical + fusion.dense)
    hits = []
    for rowid, relevance in rows:
        fact = memory.core.get(rowid)
        if fact is not None:
            hits.append(Hit(text=fact.text, tier="core", score=share * relevance / best,
                            created_at=fact.created_at, id=fact.id, fact_id=fact.id,
                            durability=fact.durability))
    return hits

"""Building the HNSW graphs a store's vector search needs, before any search asks for them.

Past ``HNSW_MIN_ROWS`` vectors in a table, a SQLite store answers nearest-row
searches from a graph that the first search wanting it builds in the background
(memory/store/sqlite/vectors.py), minutes at 1M vectors. A process that ends
sooner (one chat turn, a script) saves nothing, and the next one starts over.
``build_graphs`` builds every graph the store needs now, waits for it and saves
it beside the database, where the next open finds it. PostgreSQL indexes
vectors on its server (memory/store/postgres/vectors.py): nothing to build here.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from tiermem.memory.config import MemoryConfig
from tiermem.memory.ops.reindex import check_no_reindex_pending
from tiermem.memory.store.contract import StorageBackend
from tiermem.memory.store.records import VectorTable
from tiermem.memory.store.sqlite.graph import graph_build_bytes
from tiermem.memory.store.sqlite.store import SQLiteStore
from tiermem.memory.store.sqlite.vectors import FaissIndex

#: What became of a table's graph.
NOT_NEEDED = "not needed"
SAVED_ALREADY = "saved already"
BUILT = "built"
FAILED = "failed"
#: The tier each vector table serves, as users know them.
TIERS: dict[VectorTable, str] = {"passages": "archival", "messages": "recall"}


@dataclass(frozen=True)
class GraphReport:
    """One table's graph: ``outcome`` is one of the constants above."""

    tier: str
    vectors: int
    outcome: str
    #: The size from which the table's searches go through a graph.
    graph_from: int
    seconds: float = 0.0
    error: str | None = None


def build_graphs(store: StorageBackend,
                 on_progress: Callable[[str, int, int], None] | None = None
                 ) -> list[GraphReport]:
    """Build and save the graph of each vector table that needs one and has none saved;
    ``on_progress`` hears (tier, vectors linked, vectors in all) as each build goes.
    Empty for a backend that keeps no graph of its own (PostgreSQL)."""
    if not isinstance(store, SQLiteStore):
        return []
    check_no_reindex_pending(store)  # vectors of two embedders: no index fits them
    dim = int(store.settings.get("embedder_dim", "0") or 0)
    if not dim:  # nothing was ever embedded
        return []
    config = MemoryConfig.from_meta(store.settings.get) or MemoryConfig()
    tables: list[VectorTable] = ["passages", "messages"] if config.recall_dense else [
        "passages"]
    return [_build_one(store.vectors(table, dim), TIERS[table], on_progress)
            for table in tables]


def _build_one(index: FaissIndex, tier: str,
               on_progress: Callable[[str, int, int], None] | None) -> GraphReport:
    def report(outcome: str, seconds: float = 0.0, error: str | None = None) -> GraphReport:
        return GraphReport(tier, len(index), outcome, index.graph_min_rows, seconds, error)

    if not index.graph_upkeep.wanted or not len(index):
        if index.rebuilt_on_open:
            index.save()  # the float index's own file, so the next open reads it back
        return report(NOT_NEEDED)
    if index.graph is not None and not index.graph.worn:
        if index.rebuilt_on_open:
            index.save()
        return report(SAVED_ALREADY)
    start = time.monotonic()
    if on_progress is not None:
        on_progress(tier, 0, len(index))
    index.wait_for_graph(None if on_progress is None else (
        lambda linked, total: on_progress(tier, linked, total)))
    seconds = time.monotonic() - start
    if index.graph is None:
        return report(FAILED, seconds, _why(index))
    index.save()
    return report(BUILT, seconds)


def _why(index: FaissIndex) -> str:
    error = index.graph_upkeep.error
    if error is None:
        return "the build stopped"
    text = str(error) or type(error).__name__
    if isinstance(error, MemoryError) and "GB free" not in text:
        need = graph_build_bytes(len(index), index.dim) / 1e9
        text = f"out of memory ({text}); the build needs about {need:.1f} GB free"
    return text


__all__ = ["BUILT", "FAILED", "NOT_NEEDED", "SAVED_ALREADY", "GraphReport", "build_graphs"]

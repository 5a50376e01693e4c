"""Searching a FAISS index of SQLite's vectors (``FaissIndex``, memory/store/sqlite/vectors.py).

Three ways to the nearest rows, the same similarities whichever answers: a scan of
every float32 vector; from ``prefilter_min_rows`` rows on, a scan of an 8-bit copy
whose candidates are rescored exactly (memory/store/sqlite/prefilter.py), widened until
no row left out could rank higher; and the HNSW graph when ``GraphUpkeep`` says it
answers. ``above`` never asks the graph, so the counts built on it stay exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

import faiss
import numpy as np

from tiermem.memory.store.sqlite.graph_upkeep import GraphUpkeep
from tiermem.memory.store.sqlite.prefilter import Prefilter

if TYPE_CHECKING:
    from tiermem.memory.store.sqlite.store import SQLiteStore


def single_thread_search() -> None:
    # With more threads a single query was measured 1.6-60x slower on 2 cores.
    faiss.omp_set_num_threads(1)


class VectorSearch:
    """The searches of ``FaissIndex``, which keeps what they read up to date."""

    store: SQLiteStore
    table: str
    dim: int
    index: faiss.IndexIDMap2
    ef_search: int
    prefilter: Prefilter | None
    prefilter_min_rows: int
    graph_upkeep: GraphUpkeep

    def search(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Top ``k`` (ids, similarities) for one unit query vector, best first."""
        total = int(self.index.ntotal)
        if total == 0 or k <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        single_thread_search()
        q = np.ascontiguousarray(query, dtype=np.float32).reshape(1, self.dim)
        k = min(k, total)
        graph = self.graph_upkeep.answering(k)
        if graph is not None:
            return graph.nearest(q, k, self.ef_search)
        prefilter = self._active_prefilter()
        if prefilter is None:
            sims, ids = self.index.search(q, k)
            keep = ids[0] >= 0
            return ids[0][keep], sims[0][keep]
        margin = prefilter.margin(q)
        want = min(total, max(4 * k, 64))
        while True:
            ids, lowest = prefilter.top(q, want)
            ids, sims = self._rescored(ids, q)
            # A row outside the candidates is at most lowest + margin, exactly.
            if want >= total or (len(ids) >= k and sims[k - 1] >= lowest + margin):
                return ids[:k], sims[:k]
            want = min(total, 4 * want)

    def nearest(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, float]:
        """About the ``k`` nearest rows with their exact similarities, best first, and a
        similarity no row left out exceeds (-inf when none is left out).

        Cheaper than ``search`` for a long list: one scan of the 8-bit copy,
        no widening, so the rows are the nearest by approximate similarity;
        the bound is what makes an answer built on them exact.
        """
        total = int(self.index.ntotal)
        graph = self.graph_upkeep.answering(k)
        if graph is not None:
            single_thread_search()
            q = np.ascontiguousarray(query, dtype=np.float32).reshape(1, self.dim)
            ids, sims = graph.nearest(q, k + 1, self.ef_search)
            # Approximate: a row the graph did not find may lie above this.
            bound = float(sims[min(k, len(sims) - 1)]) if len(sims) else float("inf")
            return ids[:k], sims[:k], bound
        prefilter = self._active_prefilter()
        if prefilter is None or k >= total:
            ids, sims = self.search(query, k)
            return ids, sims, float(sims[-1]) if 0 < len(ids) < total else float("-inf")
        single_thread_search()
        q = np.ascontiguousarray(query, dtype=np.float32).reshape(1, self.dim)
        candidates, lowest = prefilter.top(q, k)
        ids, sims = self._rescored(candidates, q)
        return ids, sims, lowest + prefilter.margin(q)

    def above(self, query: np.ndarray, threshold: float) -> tuple[np.ndarray, np.ndarray]:
        """Every (id, similarity) with similarity >= threshold, best first."""
        if self.index.ntotal == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        single_thread_search()
        q = np.ascontiguousarray(query, dtype=np.float32).reshape(1, self.dim)
        prefilter = self._active_prefilter()
        if prefilter is not None:
            ids, sims = self._rescored(prefilter.above(q, threshold), q)
            keep = sims >= threshold
            return ids[keep], sims[keep]
        # FAISS keeps similarities strictly above the radius; this keeps those equal to it.
        lims, sims, ids = self.index.range_search(q, float(np.nextafter(
            np.float32(threshold), np.float32(-np.inf))))
        sims, ids = sims[lims[0] : lims[1]], ids[lims[0] : lims[1]]
        keep = sims >= np.float32(threshold)
        order = np.argsort(-sims[keep], kind="stable")
        return ids[keep][order], sims[keep][order]

    def similarities(self, ids: Sequence[int], query: np.ndarray) -> dict[int, float]:
        """The exact similarity of each of ``ids`` that has a vector here."""
        if not ids:
            return {}
        wanted = np.asarray(ids, dtype=np.int64)
        try:
            rows = self.index.reconstruct_batch(wanted)
        except RuntimeError:  # some rows have no vector (tool messages, for one)
            wanted = np.asarray(self._with_vectors(ids), dtype=np.int64)
            if not len(wanted):
                return {}
            rows = self.index.reconstruct_batch(wanted)
        sims = inner_products(rows, query)
        return dict(zip(wanted.tolist(), sims.tolist(), strict=True))

    def _with_vectors(self, ids: Sequence[int]) -> list[int]:
        """Those of ``ids`` whose rows have an embedding (SQLite asked once per 900 ids,
        where a failed FAISS lookup per id costs an exception each)."""
        found: set[int] = set()
        for start in range(0, len(ids), 900):
            chunk = list(ids[start : start + 900])
            found.update(r[0] for r in self.store.execute(
                f"SELECT id FROM {self.table} WHERE id IN ({','.join('?' * len(chunk))})"
                " AND embedding IS NOT NULL", chunk))
        return [i for i in ids if i in found]

    def _rescored(self, ids: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``ids`` with their exact similarities, best first."""
        if len(ids) == 0:
            return ids, np.zeros(0, dtype=np.float32)
        sims = inner_products(self.index.reconstruct_batch(ids), q[0])
        order = np.argsort(-sims, kind="stable")
        return ids[order], sims[order]

    def float_vectors(self) -> np.ndarray:
        """Every stored float32 vector, in the order of ``ids()`` (a view, not a copy)."""
        flat = cast(faiss.IndexFlat, faiss.downcast_index(self.index.index))
        total = int(self.index.ntotal)
        return faiss.rev_swig_ptr(flat.get_xb(), total * self.dim).reshape(total, self.dim)

    def _active_prefilter(self) -> Prefilter | None:
        """The prefilter, built (or retrained) first if the index has grown into needing one."""
        if self.index.ntotal < self.prefilter_min_rows:
            return None
        if self.prefilter is None or self.prefilter.stale:
            self.prefilter = Prefilter.build(faiss.vector_to_array(self.index.id_map),
                                             self.float_vectors())
        return self.prefilter


def inner_products(rows: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Each row's inner product with ``query``, computed as FAISS computes it when it
    scans the index, so a similarity is the same float whichever path found its row
    (numpy's einsum differed in the last bit for most rows, which could reorder ties).
    Not ``@``: BLAS would start threads for a matrix-vector product, measured 100x
    slower on a busy 2-core machine."""
    rows = np.ascontiguousarray(rows, dtype=np.float32)
    # FAISS reads as many floats as the rows are wide: a query of another size must fail here.
    q = np.ascontiguousarray(query, dtype=np.float32).reshape(rows.shape[1])
    out = np.empty(len(rows), dtype=np.float32)
    if len(rows):
        faiss.fvec_inner_products_ny(  # type: ignore[attr-defined]
            faiss.swig_ptr(out), faiss.swig_ptr(q), faiss.swig_ptr(rows), len(q), len(rows))
    return out

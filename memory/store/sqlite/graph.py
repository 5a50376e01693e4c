"""An HNSW graph over the 8-bit codes of a dense index: approximate nearest rows, fast.

Exact search reads every vector once per query, so its time grows with the
store (about 45 ms to take the 2,000 nearest of 1M MiniLM-sized vectors from
their 8-bit copy, more on a busy machine). A graph search visits a few
thousand rows whatever the store's size, at the price of sometimes missing a
near row: ``benchmark --perf`` reports its recall@10 against exact search.

The graph (FAISS ``IndexHNSWSQ``: HNSW links over ``QT_8bit_uniform`` codes, a
quarter of the float32 bytes) only proposes candidates. The dense index
rescores them with their float32 vectors, so every similarity handed back is
exact; only which rows are proposed is approximate.

HNSW cannot take a node out of its graph. A removed row instead loses its
label (set to -1, so searches skip it) and its codes are overwritten with
zeros, so the next save writes none of its bytes; it stays a node that
routes searches through a meaningless point. When such nodes pass a quarter
of the graph, the owner builds it again (``worn``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, cast

import faiss
import numpy as np

#: Links per node (HNSW's M). 16 rather than 32: half the build time and memory for a
#: small loss of recall, measured on 100k vectors.
LINKS = 16
#: Candidates kept while the graph is built (efConstruction).
BUILD_BREADTH = 40
#: Removed nodes, as a share of the graph, past which it is rebuilt.
WORN_SHARE = 0.25


class Graph:
    """The HNSW graph of one dense index's vectors, keyed by the same row ids."""

    def __init__(self, index: faiss.IndexIDMap) -> None:
        self.index = index
        # read_index and the constructor both leave the IDMap owning the graph; this view
        # only reaches it, and lives no longer than ``index``.
        self._hnsw = cast(faiss.IndexHNSWSQ, faiss.downcast_index(index.index))
        self._storage = cast(faiss.IndexScalarQuantizer,
                             faiss.downcast_index(self._hnsw.storage))
        labels = self._labels()
        live = labels >= 0
        self._position = dict(zip(labels[live].tolist(), np.flatnonzero(live).tolist(),
                                  strict=True))
        self.removed = int(len(labels) - live.sum())

    @classmethod
    def build(cls, ids: np.ndarray, vectors: np.ndarray) -> Graph:
        """Train the 8-bit range on ``vectors`` and link them all."""
        dim = vectors.shape[1]
        hnsw = faiss.IndexHNSWSQ(dim, faiss.ScalarQuantizer.QT_8bit_uniform,  # type: ignore[arg-type]
                                 LINKS, faiss.METRIC_INNER_PRODUCT)
        hnsw.hnsw.efConstruction = BUILD_BREADTH
        hnsw.train(vectors[:: max(1, len(vectors) // 100_000)])
        index = faiss.IndexIDMap(hnsw)  # the wrapper keeps a reference to ``hnsw``
        graph = cls(index)
        # Linking is the slow part (minutes at 1M rows) and FAISS spreads it over every
        # core; searches go back to one thread (memory/store/sqlite/vectors.py).
        faiss.omp_set_num_threads(os.cpu_count() or 1)
        try:
            graph.add(ids, vectors)
        finally:
            faiss.omp_set_num_threads(1)
        return graph

    @classmethod
    def load(cls, path: Path, state: dict[str, Any]) -> Graph | None:
        """The graph saved at ``path`` if it is the one ``state`` describes, else None."""
        try:
            index = faiss.read_index(str(path))
        except RuntimeError:
            return None
        if not isinstance(index, faiss.IndexIDMap) or not isinstance(
                faiss.downcast_index(index.index), faiss.IndexHNSWSQ):
            return None
        graph = cls(index)
        if len(graph) != state.get("count") or graph.removed != state.get("removed"):
            return None
        return graph

    def save(self, path: Path) -> None:
        faiss.write_index(self.index, str(path))

    @property
    def state(self) -> dict[str, Any]:
        return {"count": len(self), "removed": self.removed}

    def __len__(self) -> int:
        """How many rows the graph holds (removed ones not counted)."""
        return len(self._position)

    @property
    def worn(self) -> bool:
        return self.removed > WORN_SHARE * max(int(self.index.ntotal), 1)

    def live_ids(self) -> np.ndarray:
        return np.fromiter(self._position, dtype=np.int64, count=len(self._position))

    def _labels(self) -> np.ndarray:
        total = int(self.index.ntotal)
        if not total:
            return np.zeros(0, dtype=np.int64)
        # A view of the IDMap's own array: writing to it relabels the graph's nodes.
        return faiss.rev_swig_ptr(self.index.id_map.data(), total)

    # -- changes ---------------------------------------------------------------------------
    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        if len(ids) == 0:
            return
        start = int(self.index.ntotal)
        self.index.add_with_ids(vectors, ids)
        self._position.update(zip(ids.tolist(), range(start, start + len(ids)), strict=True))

    def remove(self, ids: np.ndarray) -> None:
        """Unlabel the rows' nodes and zero their codes (module docstring)."""
        positions = [self._position.pop(i) for i in ids.tolist() if i in self._position]
        if not positions:
            return
        labels = self._labels()
        size = int(self._storage.code_size)
        codes = faiss.rev_swig_ptr(self._storage.codes.data(), int(self._storage.ntotal) * size)
        for position in positions:
            labels[position] = -1
            codes[position * size : (position + 1) * size] = 0
        self.removed += len(positions)

    # -- search ----------------------------------------------------------------------------
    def candidates(self, query: np.ndarray, want: int, breadth: int) -> np.ndarray:
        """About the ``want`` nearest row ids, by 8-bit similarity; the search keeps
        ``breadth`` candidates (HNSW's efSearch), at least ``want``."""
        if not len(self._position) or want <= 0:
            return np.zeros(0, dtype=np.int64)
        params = faiss.SearchParametersHNSW()  # type: ignore[attr-defined]
        params.efSearch = max(breadth, want)
        # Removed nodes come back labelled -1; ask for enough to make up for them.
        wanted = min(int(self.index.ntotal), want + min(self.removed, want))
        _, ids = self.index.search(query, wanted, params=params)
        found = ids[0]
        return found[found >= 0][:want]


__all__ = ["BUILD_BREADTH", "LINKS", "WORN_SHARE", "Graph"]

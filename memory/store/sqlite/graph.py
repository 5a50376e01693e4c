"""An HNSW graph over a dense index's vectors: the approximate nearest rows, fast.

Exact search reads every vector once per query, so its time grows with the
store: taking the 2,000 nearest of 1M 384-d vectors from their 8-bit copy
took 113 / 438 ms p50 / p99 on a busy 2-core machine. A graph search visits a
few thousand rows whatever the store's size, at the price of sometimes
missing a near row: ``benchmark --perf`` reports its recall@10 against
exact search.

FAISS ``IndexHNSWFlat``, the graph over float32 copies of the vectors, was
measured against ``IndexHNSWSQ`` over 8-bit codes (a quarter of the memory)
on 200k bench vectors, for recall's 2,000 nearest: 24.5 / 41.7 ms against
46.8 / 146 ms p50 / p99 (decoding the codes at every step of the walk costs
more than reading floats), with the same recall and build time. So the graph
keeps floats, and its similarities are the exact ones; only which rows it
finds is approximate. At 1M vectors it takes about 1.7 GB.

HNSW cannot take a node out of its graph. A removed row instead loses its
label (set to -1, so searches skip it) and its vector is overwritten with
zeros, so the next save writes none of its bytes; it stays a node that
routes searches through a meaningless point. When such nodes pass a quarter
of the graph, the owner builds it again (``worn``).

Linking takes minutes at 1M rows (505 s measured on 2 cores), so a graph is
built on a thread of its own (``GraphBuild``) from a copy of the vectors,
while searches scan exactly; FAISS releases the GIL while it links. Changes
made meanwhile wait in the build and are applied to the graph when its owner
takes it. The copy costs as much memory as the vectors for the duration. Such
a build links on every core but one, leaving that one to the searches answered
meanwhile; a build someone waits for (``tiermem index``) takes them all
(``build_threads``).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import faiss
import numpy as np

from tiermem.memory.store.sqlite.index_io import write_index

#: Links per node (HNSW's M). 16 rather than 32: half the build time and memory for a
#: small loss of recall, measured on 100k vectors.
LINKS = 16
#: Candidates kept while the graph is built (efConstruction).
BUILD_BREADTH = 40
#: Removed nodes, as a share of the graph, past which it is rebuilt.
WORN_SHARE = 0.25
#: Rows linked per step of a build; between steps it records progress and may stop.
BUILD_STEP = 50_000
#: Rows changed during a build that the build links itself, once its copy is linked, until
#: fewer than this many wait: the rest are linked by the search that takes the graph.
CATCH_UP_ROWS = 1_000


class Graph:
    """The HNSW graph of one dense index's vectors, keyed by the same row ids."""

    def __init__(self, index: faiss.IndexIDMap) -> None:
        self.index = index
        # read_index and the constructor both leave the IDMap owning the graph; this view
        # only reaches it, and lives no longer than ``index``.
        self._hnsw = cast(faiss.IndexHNSWFlat, faiss.downcast_index(index.index))
        self._storage = cast(faiss.IndexFlat, faiss.downcast_index(self._hnsw.storage))
        labels = self._labels()
        live = labels >= 0
        self._position = dict(zip(labels[live].tolist(), np.flatnonzero(live).tolist(),
                                  strict=True))
        self.removed = int(len(labels) - live.sum())

    @classmethod
    def build(cls, ids: np.ndarray, vectors: np.ndarray,
              keep_going: Callable[[int], bool] = lambda linked: True,
              threads: int | None = None) -> Graph | None:
        """Link all of ``vectors``, ``BUILD_STEP`` rows at a time, on ``threads`` threads
        (default: every core); None if ``keep_going`` (given the rows linked so far)
        said to stop."""
        hnsw = faiss.IndexHNSWFlat(vectors.shape[1], LINKS, faiss.METRIC_INNER_PRODUCT)
        hnsw.hnsw.efConstruction = BUILD_BREADTH
        index = faiss.IndexIDMap(hnsw)  # the wrapper keeps a reference to ``hnsw``
        graph = cls(index)
        # Linking is the slow part (minutes at 1M rows), and FAISS spreads it over OpenMP
        # threads. The count is the calling thread's own (OpenMP keeps it per thread), so a
        # search thread's count is left alone.
        before = faiss.omp_get_max_threads()
        faiss.omp_set_num_threads(threads or available_cores())
        try:
            for start in range(0, len(ids), BUILD_STEP):
                if not keep_going(start):
                    return None
                end = start + BUILD_STEP
                graph.add(ids[start:end], vectors[start:end])
            if not keep_going(len(ids)):
                return None
        finally:
            faiss.omp_set_num_threads(before)
        return graph

    @classmethod
    def load(cls, path: Path, state: dict[str, Any]) -> Graph | None:
        """The graph saved at ``path`` if it is the one ``state`` describes, else None."""
        try:
            index = faiss.read_index(str(path))
        except RuntimeError:
            return None
        if not isinstance(index, faiss.IndexIDMap) or not isinstance(
                faiss.downcast_index(index.index), faiss.IndexHNSWFlat):
            return None
        graph = cls(index)
        if len(graph) != state.get("count") or graph.removed != state.get("removed"):
            return None
        return graph

    def save(self, path: Path) -> None:
        write_index(self.index, path)

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
        """Unlabel the rows' nodes and zero their vectors (module docstring)."""
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
    def nearest(self, query: np.ndarray, want: int, breadth: int
                ) -> tuple[np.ndarray, np.ndarray]:
        """About the ``want`` nearest (ids, similarities), best first; the search keeps
        ``breadth`` candidates (HNSW's efSearch), at least ``want``."""
        if not len(self._position) or want <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        params = faiss.SearchParametersHNSW()  # type: ignore[attr-defined]
        params.efSearch = max(breadth, want)
        # Removed nodes come back labelled -1; ask for enough to make up for them.
        wanted = min(int(self.index.ntotal), want + min(self.removed, want))
        sims, ids = self.index.search(query, wanted, params=params)
        keep = ids[0] >= 0
        return ids[0][keep][:want], sims[0][keep][:want]


class GraphBuild:
    """One graph being linked away from the searching thread (module docstring).

    ``run`` does the work, on whatever thread starts it; the owner records each
    change it makes meanwhile (``record``) and, once ``finished``, ``take``s the
    graph with the changes the build has not linked yet applied (``CATCH_UP_ROWS``
    at most, so taking it does not stall a search). ``cancel``, or ``keep_going``
    returning False, stops it at the next step. ``on_progress`` (set with
    ``watch``) hears (rows linked, rows in all) between steps, on the build's thread.
    """

    def __init__(self, ids: np.ndarray, vectors: np.ndarray,
                 keep_going: Callable[[], bool] = lambda: True,
                 on_progress: Callable[[int, int], None] | None = None,
                 threads: int | None = None) -> None:
        self.total = len(ids)
        #: The OpenMP threads that link the graph (``build_threads``).
        self.threads = threads or available_cores()
        #: Rows linked so far (updated between steps).
        self.linked = 0
        self.error: Exception | None = None
        self._work: tuple[np.ndarray, np.ndarray] | None = (ids, vectors)
        self._keep_going = keep_going
        self._on_progress = on_progress
        self._cancelled = False
        self._graph: Graph | None = None
        self._pending: list[tuple[str, np.ndarray, np.ndarray | None]] = []
        self._lock = threading.Lock()
        self._finished = threading.Event()

    def run(self) -> None:
        assert self._work is not None, "a build runs once"
        ids, vectors = self._work

        def step(linked: int) -> bool:
            if linked != self.linked and self._on_progress is not None:
                self._on_progress(linked, self.total)
            self.linked = linked
            return not self._cancelled and self._keep_going()

        try:
            graph = Graph.build(ids, vectors, step, self.threads)
            # The copy of the vectors goes before catching up, not when the build ends.
            self._work = None
            del ids, vectors
            while graph is not None:
                with self._lock:
                    if self.waiting_rows < CATCH_UP_ROWS:
                        break
                    changes, self._pending = self._pending, []
                if not step(self.total):
                    graph = None
                    break
                _apply(graph, changes)
            with self._lock:  # a build cancelled meanwhile keeps nothing (``cancel``)
                self._graph = None if self._cancelled else graph
            if graph is not None:
                self.linked = self.total
        except Exception as exc:  # MemoryError included: the owner goes on without a graph
            self.error = exc
        finally:
            self._work = None
            self._finished.set()

    @property
    def finished(self) -> bool:
        return self._finished.is_set()

    def wait(self) -> None:
        self._finished.wait()

    def cancel(self) -> None:
        """Stop at the next step, and let go of the graph if it is built already."""
        with self._lock:
            self._cancelled = True
            self._graph = None

    def watch(self, on_progress: Callable[[int, int], None]) -> None:
        """Report progress to ``on_progress`` from the next step on."""
        self._on_progress = on_progress

    @property
    def waiting_rows(self) -> int:
        """Rows changed during the build that the graph does not reflect yet."""
        return sum(len(ids) for _, ids, _ in self._pending)

    def record(self, change: str, ids: np.ndarray, vectors: np.ndarray | None = None) -> None:
        """A change made to the vectors after the copy was taken (``"add"`` or ``"remove"``)."""
        with self._lock:
            self._pending.append((change, ids, None if vectors is None else vectors.copy()))

    def take(self) -> Graph | None:
        """The finished graph with the changes it does not reflect yet applied, in order;
        None if the build failed (``error``) or stopped."""
        assert self.finished, "take a build once it has finished"
        graph, self._graph = self._graph, None
        with self._lock:
            changes, self._pending = self._pending, []
        if graph is not None:
            _apply(graph, changes)
        return graph


def _apply(graph: Graph, changes: list[tuple[str, np.ndarray, np.ndarray | None]]) -> None:
    for change, ids, vectors in changes:
        if change == "add":
            assert vectors is not None
            graph.add(ids, vectors)
        else:
            graph.remove(ids)


def available_cores() -> int:
    """The cores this process may run on: ``taskset`` or a cpuset may allow fewer than the
    machine has (a CPU quota, such as ``docker --cpus``, does not show here)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def build_threads(waited_for: bool) -> int:
    """Threads for a graph build: every core when its caller waits for it, else one core
    fewer, so that searches answered meanwhile (on one thread each) still find a free
    core."""
    cores = available_cores()
    return cores if waited_for else max(1, cores - 1)


def graph_build_bytes(rows: int, dim: int) -> int:
    """About the memory a build of ``rows`` vectors takes: its copy of the vectors, the
    graph's own, and the links of its bottom layer (upper layers add a few percent)."""
    return rows * (2 * dim * 4 + 2 * LINKS * 4)


def in_background(build: GraphBuild) -> None:
    """Run ``build`` on a daemon thread: a process may exit without waiting for it."""
    threading.Thread(target=build.run, name="tiermem-graph-build", daemon=True).start()


__all__ = ["BUILD_BREADTH", "BUILD_STEP", "CATCH_UP_ROWS", "LINKS", "WORN_SHARE", "Graph",
           "GraphBuild", "available_cores", "build_threads", "graph_build_bytes",
           "in_background"]

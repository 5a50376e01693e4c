"""The life of a dense index's HNSW graph: when one is wanted, which graph answers a
search, starting its build, taking it once built, and letting it go.

A ``FaissIndex`` (memory/store/sqlite/vectors.py) holds one ``GraphUpkeep`` and tells it
of every change to its vectors; the graph and its build are memory/store/sqlite/graph.py's.
A missing (or worn) graph is built in the background, starting with the first search
that wants it; searches scan exactly until it is ready (``wait`` waits for it).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import ClassVar, Protocol

import numpy as np

from tiermem.memory.store.sqlite.graph import (
    Graph,
    GraphBuild,
    build_threads,
    graph_build_bytes,
)

log = logging.getLogger(__name__)


class ClosingStore(Protocol):
    """The store behind the index: a graph is neither built nor kept once it closes."""

    @property
    def closed(self) -> bool: ...


class GraphOwner(Protocol):
    """The dense index a graph is kept for (``FaissIndex``)."""

    #: Read from the class at each build, so that replacing it there takes effect.
    start_graph_build: ClassVar[Callable[[GraphBuild], None]]

    @property
    def store(self) -> ClosingStore: ...

    @property
    def table(self) -> str: ...

    @property
    def dim(self) -> int: ...

    @property
    def vector_index(self) -> str: ...

    @property
    def graph_min_rows(self) -> int: ...

    def __len__(self) -> int: ...

    def ids(self) -> np.ndarray: ...

    def float_vectors(self) -> np.ndarray: ...


class GraphUpkeep:
    """The graph of one dense index, and its build while one runs (module docstring)."""

    def __init__(self, owner: GraphOwner) -> None:
        self.owner = owner
        self.graph: Graph | None = None
        #: How many times the graph was built from every vector (not loaded from its file).
        self.graphs_built = 0
        #: The graph being built, if one is (module docstring).
        self.build: GraphBuild | None = None
        #: Why the graph could not be built (exact search answers); not tried again while
        #: this index lives.
        self.error: BaseException | None = None
        #: Which index answered the last search for the nearest rows: "exact" or "hnsw".
        self.answered_by = "exact"

    @property
    def approximate(self) -> bool:
        """Whether a search for the nearest rows goes through the HNSW graph now: from the
        size that calls for one, once it is ready (while it is built the exact scan answers).

        Asking does what a search would: it starts a missing graph's build and takes a
        finished one, so the search that follows answers as this said. (A build that
        finishes between the two is taken by that search, which then reads through the
        graph the longer list its caller planned for an exact scan: slower, once.)
        """
        return self.wanted and self._current_graph() is not None

    @property
    def wanted(self) -> bool:
        """Whether the index's size (or ``vector_index="hnsw"``) calls for a graph."""
        owner = self.owner
        return owner.vector_index == "hnsw" or (
            owner.vector_index == "auto" and len(owner) >= owner.graph_min_rows)

    def answering(self, k: int) -> Graph | None:
        """The graph if it answers a search for ``k`` rows; None when the exact scan does
        (below the graph's size, or while its first build runs). A missing or worn graph
        starts building here; a worn one answers until its successor is ready."""
        if not self.wanted or k >= len(self.owner):
            self.answered_by = "exact"
            return None
        graph = self._current_graph()
        self.answered_by = "exact" if graph is None else "hnsw"
        return graph

    # -- changes to the index's vectors ---------------------------------------------------
    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        if self.graph is not None:
            self.graph.add(ids, vectors)
        if self.build is not None:
            self.build.record("add", ids, vectors)

    def remove(self, ids: np.ndarray) -> None:
        if self.graph is not None:
            self.graph.remove(ids)
        if self.build is not None:
            self.build.record("remove", ids)

    def forget(self) -> None:
        """Drop the graph and any build: they describe vectors the index no longer holds."""
        self.graph = None
        self._drop_build()

    # -- building -------------------------------------------------------------------------
    def _current_graph(self) -> Graph | None:
        """The graph that answers now, once a missing or worn one's build has been started
        (or a finished one taken)."""
        if (self.graph is None or self.graph.worn) and not self.owner.store.closed:
            self._advance_build()
        return self.graph

    def _advance_build(self, on_progress: Callable[[int, int], None] | None = None,
                       waited_for: bool = False) -> None:
        """Start the graph's build if none runs, or take the graph if it has finished;
        a build ``waited_for`` runs on every core (graph.build_threads)."""
        owner = self.owner
        if self.build is None:
            if self.error is not None:
                return
            log.info("building the %s graph over %d vectors in the background; searches "
                     "scan every vector until it is ready", owner.table, len(owner))
            store = owner.store
            try:
                # A copy: the index's own array moves when rows are added meanwhile.
                copy = owner.float_vectors().copy()
            except MemoryError:
                self.error = MemoryError(
                    f"out of memory copying the vectors; the build needs about "
                    f"{graph_build_bytes(len(owner), owner.dim) / 1e9:.1f} GB free")
                log.warning("the %s graph could not be started (%s); searches scan every "
                            "vector", owner.table, self.error)
                return
            build = GraphBuild(owner.ids(), copy, keep_going=lambda: not store.closed,
                               on_progress=on_progress, threads=build_threads(waited_for))
            try:
                type(owner).start_graph_build(build)
            except RuntimeError as exc:  # no thread to be had: exact search goes on answering
                self.error = exc
                log.warning("the %s graph could not be started (%s); searches scan every "
                            "vector", owner.table, exc)
                return
            self.build = build
        if self.build.finished:
            self._take_graph()

    def take_finished(self) -> None:
        """Take the graph if its build has finished, so that a save writes it too."""
        if self.build is not None and self.build.finished:
            self._take_graph()

    def _take_graph(self) -> None:
        build, self.build = self.build, None
        assert build is not None
        try:
            graph = build.take()
        except MemoryError as exc:  # applying the changes made meanwhile can run out too
            build.error, graph = exc, None
        if graph is None:
            if build.error is not None:
                # Exact search still answers; the graph is tried again by the next session.
                self.error = build.error
                log.warning("the %s graph could not be built (%s); searches scan every "
                            "vector", self.owner.table, build.error)
            return
        self.graph = graph
        self.graphs_built += 1
        log.info("the %s graph over %d vectors is ready", self.owner.table, len(graph))

    def _drop_build(self) -> None:
        if self.build is not None:
            self.build.cancel()
            self.build = None

    def let_go(self) -> None:
        """Once the store has closed: free the graph and stop its build (a closed memory
        object may be kept long after). A build that had not finished is lost; say how to
        keep the next session from starting it over."""
        build = self.build
        if build is not None and not build.finished:
            log.warning("the %s graph was not finished when the memory closed (%d of %d "
                        "vectors linked), so the next session builds it again; `tiermem "
                        "index --agent NAME` builds and saves it once", self.owner.table,
                        build.linked, build.total)
        self.forget()

    def wait(self, on_progress: Callable[[int, int], None] | None = None) -> None:
        """Build the graph the index's size calls for, if it is missing or worn, and wait
        until searches use it (``tiermem index``, benchmarks, and callers that prefer a
        pause to a scan); ``on_progress`` hears (rows linked, rows in all) as it goes.
        Without a graph afterwards, ``error`` says why."""
        if not self.wanted or not len(self.owner):
            return
        while ((self.graph is None or self.graph.worn) and self.error is None
               and not self.owner.store.closed):
            self._advance_build(on_progress, waited_for=True)
            if self.build is None:
                break
            if on_progress is not None:
                self.build.watch(on_progress)
            self.build.wait()


__all__ = ["ClosingStore", "GraphOwner", "GraphUpkeep"]

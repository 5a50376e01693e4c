"""A FAISS index derived from embedding blobs stored in SQLite.

The index is keyed by the table's rowid (``IndexIDMap2`` over ``IndexFlatIP``,
exact inner product on unit vectors), so SQLite stays the source of truth and
the index can be dropped and rebuilt at any time. From ``PREFILTER_MIN_ROWS``
rows on, searches scan an 8-bit copy first and rescore its candidates
(memory/store/sqlite/prefilter.py): the same exact answers, reading a quarter of the bytes.

From ``HNSW_MIN_ROWS`` rows on (``vector_index="auto"``, the default) or at any
size (``"hnsw"``), a search for the nearest rows asks an HNSW graph
(memory/store/sqlite/graph.py) instead of scanning every row: approximate
(a near row may be missed; the similarities are exact), and its time no
longer grows with the store. ``above`` (every row past a similarity) always scans, so the counts
built on it stay exact. ``"exact"`` never uses the graph. A missing (or worn) graph is built
in the background while searches scan exactly (memory/store/sqlite/graph_upkeep.py).

Every change to the embeddings bumps a generation counter in the database, in
the same transaction as the change. The index is saved beside the database
with a sidecar that records that generation (memory/store/sqlite/vector_files.py);
on open, a missing or unreadable file, damaged bytes, a file saved for another
database, or a generation or count that disagrees with the database means a
rebuild from the blobs, never a silently wrong answer. Changes made inside a
transaction are journaled and undone if it rolls back.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import faiss
import numpy as np

from tiermem.memory.store.sqlite.graph import Graph, GraphBuild, in_background
from tiermem.memory.store.sqlite.graph_upkeep import GraphUpkeep
from tiermem.memory.store.sqlite.prefilter import Prefilter
from tiermem.memory.store.sqlite.vector_files import load_saved, save_files
from tiermem.memory.store.sqlite.vector_search import VectorSearch, single_thread_search
from tiermem.memory.store.vector_choice import HNSW_MIN_ROWS, checked_vector_index

if TYPE_CHECKING:
    from tiermem.memory.store.sqlite.store import SQLiteStore

#: Below this many rows the float32 vectors (15 MB at 10k x 384) stay in the CPU
#: caches and a plain scan is as fast as the prefilter's scan plus rescoring.
PREFILTER_MIN_ROWS = 20_000
#: Candidates an HNSW search keeps by default (its efSearch; PostgreSQL's default too).
DEFAULT_EF_SEARCH = 100


class FaissIndex(VectorSearch):
    """The dense index over one table's ``embedding`` column
    (memory.store.contract.VectorIndex)."""

    #: How a graph build is started: on a thread of its own. Tests run it inline.
    start_graph_build: ClassVar[Callable[[GraphBuild], None]] = staticmethod(in_background)

    def __init__(self, store: SQLiteStore, table: str, dim: int, file: Path | None,
                 prefilter_min_rows: int | None = None, *, vector_index: str = "auto",
                 ef_search: int | None = None, graph_min_rows: int | None = None) -> None:
        self.vector_index = checked_vector_index(vector_index)
        self.ef_search = ef_search or DEFAULT_EF_SEARCH
        self.graph_min_rows = HNSW_MIN_ROWS if graph_min_rows is None else graph_min_rows
        self.graph_upkeep = GraphUpkeep(self)
        self.store = store
        self.table = table
        self.dim = dim
        self.file = file
        self.prefilter_min_rows = (PREFILTER_MIN_ROWS if prefilter_min_rows is None
                                   else prefilter_min_rows)
        self.prefilter: Prefilter | None = None
        self._generation_key = _generation_key(table)
        self._journal: list[tuple[int, str, np.ndarray, np.ndarray | None]] = []
        self.index = self._new_index()
        self.rebuilt_on_open = False
        store.on_rollback(self._undo_journal)
        store.on_commit(self._committed)
        store.on_release(self._released)
        store.on_close(self.graph_upkeep.let_go)
        store.on_change_elsewhere(self._catch_up)
        self._generation_held = 0
        self._open()

    def _new_index(self) -> faiss.IndexIDMap2:
        return faiss.IndexIDMap2(faiss.IndexFlatIP(self.dim))

    # -- consistency with SQLite ----------------------------------------------------------
    @property
    def generation(self) -> int:
        return int(self.store.settings.get(self._generation_key, "0") or 0)

    def stored_count(self) -> int:
        sql = f"SELECT count(*) FROM {self.table} WHERE embedding IS NOT NULL"
        return int(self.store.execute(sql).fetchone()[0])

    def _open(self) -> None:
        # Read first: a commit made while the rows are read shows as a newer generation.
        self._generation_held = self.generation
        if self.file is not None and load_saved(self):
            return
        self.rebuild()
        self.rebuilt_on_open = self.file is not None

    def _catch_up(self) -> None:
        """A read-only session's index, after a writer committed: the same as the
        database's again (the writer's saved files if they are current, else a rebuild)."""
        if self.generation != self._generation_held:
            rebuilt_on_open = self.rebuilt_on_open  # about the open, not this
            # Derived from the index being replaced: the saved files may bring their own.
            self.prefilter = None
            self.graph_upkeep.forget()
            self._open()
            self.rebuilt_on_open = rebuilt_on_open

    def rebuild(self) -> None:
        """Recreate the index from the embedding blobs in SQLite."""
        self.index = self._new_index()
        self.prefilter = None  # built again from the new index when a search needs it
        self.graph_upkeep.forget()  # likewise
        cursor = self.store.execute(
            f"SELECT id, embedding FROM {self.table} WHERE embedding IS NOT NULL ORDER BY id"
        )
        while rows := cursor.fetchmany(8192):
            ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
            vectors = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
            self.index.add_with_ids(vectors.reshape(len(rows), self.dim), ids)

    def save(self) -> None:
        """Write the index and what is derived from it beside the database
        (memory/store/sqlite/vector_files.py); a graph that has finished building is
        taken first, so it is saved too."""
        if self.file is None or self.store.read_only:
            return
        self.graph_upkeep.take_finished()
        save_files(self)

    def differences(self, limit: int = 5) -> list[str]:
        """How this index differs from the vectors stored in SQLite; empty when it holds
        exactly the stored rows' ids with exactly their bytes."""
        ids = self.ids()
        problems = []
        if len(np.unique(ids)) != len(ids):
            problems.append(f"{len(ids) - len(np.unique(ids))} id(s) hold more than one vector")
        stored = {int(r[0]): bytes(r[1]) for r in self.store.execute(
            f"SELECT id, embedding FROM {self.table} WHERE embedding IS NOT NULL")}
        only_index = sorted(set(ids.tolist()) - stored.keys())
        only_store = sorted(stored.keys() - set(ids.tolist()))
        if only_index:
            problems.append(f"ids with a vector in FAISS but not in SQLite: {only_index[:limit]}")
        if only_store:
            problems.append(f"ids with a vector in SQLite but not in FAISS: {only_store[:limit]}")
        both = np.asarray(sorted(stored.keys() & set(ids.tolist())), dtype=np.int64)
        if len(both):
            vectors = self.index.reconstruct_batch(both)
            differ = [int(i) for i, v in zip(both.tolist(), vectors, strict=True)
                      if vector_blob(v) != stored[int(i)]]
            if differ:
                problems.append(f"ids whose FAISS vector differs from SQLite's: {differ[:limit]}")
        return problems

    # -- changes (call inside a store transaction) ---------------------------------------
    def _bump(self) -> None:
        bump_generation(self.store, self.table)

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        ids = np.ascontiguousarray(ids, dtype=np.int64)
        vectors = np.ascontiguousarray(vectors, dtype=np.float32).reshape(len(ids), self.dim)
        self._bump()
        self._add(ids, vectors)
        self._journal.append((self.store.depth, "add", ids, None))

    def remove(self, ids: np.ndarray) -> None:
        ids = np.ascontiguousarray(ids, dtype=np.int64)
        present = [i for i in ids.tolist() if self._has(i)]
        if not present:
            return
        kept = np.stack([self.index.reconstruct(i) for i in present])
        self._bump()
        self._remove(np.asarray(present, dtype=np.int64))
        self._journal.append((self.store.depth, "remove", np.asarray(present, dtype=np.int64),
                              kept))

    def _add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        self.index.add_with_ids(vectors, ids)
        if self.prefilter is not None:
            self.prefilter.add(ids, vectors)
        self.graph_upkeep.add(ids, vectors)

    def _remove(self, ids: np.ndarray) -> None:
        # faiss's wrapper turns an id array into an IDSelectorBatch.
        self.index.remove_ids(ids)  # type: ignore[arg-type]
        if self.prefilter is not None:
            self.prefilter.remove(ids)
        self.graph_upkeep.remove(ids)

    def _has(self, rowid: int) -> bool:
        try:
            self.index.reconstruct(rowid)
        except RuntimeError:
            return False
        return True

    def _undo_journal(self) -> None:
        # Each entry remembers the transaction depth it was made at; rolling back to
        # depth d undoes exactly the entries made deeper than d, newest first.
        depth = self.store.depth
        undo = [entry for entry in self._journal if entry[0] > depth]
        self._journal[:] = [entry for entry in self._journal if entry[0] <= depth]
        for _, kind, ids, vectors in reversed(undo):
            if kind == "add":
                self._remove(ids)
            elif vectors is not None:
                self._add(ids, vectors)

    def _committed(self) -> None:
        self._journal.clear()

    def _released(self) -> None:
        # A released savepoint's changes now belong to the enclosing transaction.
        depth = self.store.depth
        self._journal[:] = [(min(d, depth), kind, ids, vectors)
                            for d, kind, ids, vectors in self._journal]

    # -- contents -------------------------------------------------------------------------
    def __len__(self) -> int:
        return int(self.index.ntotal)

    def ids(self) -> np.ndarray:
        if not self.index.ntotal:
            return np.zeros(0, dtype=np.int64)
        return faiss.vector_to_array(self.index.id_map).astype(np.int64)

    # -- the HNSW graph (memory/store/sqlite/graph_upkeep.py) ------------------------------
    @property
    def graph(self) -> Graph | None:
        return self.graph_upkeep.graph

    @graph.setter
    def graph(self, graph: Graph | None) -> None:
        self.graph_upkeep.graph = graph

    @property
    def answered_by(self) -> str:
        """Which index answered the last search for the nearest rows: "exact" or "hnsw"."""
        return self.graph_upkeep.answered_by

    @property
    def approximate(self) -> bool:
        """Whether searches for the nearest rows go through the graph now (GraphUpkeep)."""
        return self.graph_upkeep.approximate

    def wait_for_graph(self, on_progress: Callable[[int, int], None] | None = None) -> None:
        """Build the graph this index's size calls for and wait for it (GraphUpkeep.wait)."""
        self.graph_upkeep.wait(on_progress)



def bump_generation(store: SQLiteStore, table: str) -> None:
    """Mark every saved index of ``table`` out of date (call inside a transaction)."""
    key = _generation_key(table)
    store.settings.set(key, int(store.settings.get(key, "0") or 0) + 1)


def _generation_key(table: str) -> str:
    return f"{table}_vector_generation"


def vector_blob(vector: np.ndarray) -> bytes:
    return np.ascontiguousarray(vector, dtype=np.float32).tobytes()


__all__ = ["DEFAULT_EF_SEARCH", "FaissIndex", "bump_generation", "single_thread_search",
           "vector_blob"]

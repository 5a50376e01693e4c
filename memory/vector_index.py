"""A FAISS index derived from embedding blobs stored in SQLite.

The index is keyed by the table's rowid (``IndexIDMap2`` over ``IndexFlatIP``,
exact inner product on unit vectors), so SQLite stays the source of truth and
the index can be dropped and rebuilt at any time.

Every change to the embeddings bumps a generation counter in the database, in
the same transaction as the change. The index file records the generation it
was saved at; on open, a missing or unreadable file, or a generation or count
that disagrees with the database, means a rebuild from the blobs, never a
silently wrong answer. Changes made inside a transaction are journaled and
undone if it rolls back.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from pathlib import Path

import faiss
import numpy as np

from memory.store import Store

log = logging.getLogger(__name__)


def single_thread_search() -> None:
    # With more threads a single query was measured 1.6-60x slower on 2 cores.
    faiss.omp_set_num_threads(1)


class VectorIndex:
    """The dense index over one table's ``embedding`` column."""

    def __init__(self, store: Store, table: str, dim: int, file: Path | None) -> None:
        self.store = store
        self.table = table
        self.dim = dim
        self.file = file
        self._generation_key = f"{table}_vector_generation"
        self._journal: list[tuple[int, str, np.ndarray, np.ndarray | None]] = []
        self.index = self._new_index()
        self.rebuilt_on_open = False
        store.on_rollback(self._undo_journal)
        store.on_commit(self._committed)
        store.on_release(self._released)
        self._open()

    def _new_index(self) -> faiss.IndexIDMap2:
        return faiss.IndexIDMap2(faiss.IndexFlatIP(self.dim))

    # -- consistency with SQLite ----------------------------------------------------------
    @property
    def generation(self) -> int:
        return int(self.store.get_meta(self._generation_key, "0") or 0)

    def _stored_count(self) -> int:
        sql = f"SELECT count(*) FROM {self.table} WHERE embedding IS NOT NULL"
        return int(self.store.execute(sql).fetchone()[0])

    def _open(self) -> None:
        if self.file is not None and self._load_file():
            return
        self.rebuild()
        self.rebuilt_on_open = self.file is not None

    def _load_file(self) -> bool:
        assert self.file is not None
        sidecar = self.file.with_suffix(".json")
        try:
            info = json.loads(sidecar.read_text())
            index = faiss.read_index(str(self.file))
        except (OSError, ValueError, RuntimeError) as exc:
            if self.file.exists() or sidecar.exists():
                log.warning("rebuilding %s index: cannot read %s (%s)", self.table, self.file, exc)
            return False
        if (
            info.get("generation") != self.generation
            or info.get("dim") != self.dim
            or index.ntotal != self._stored_count()
            or index.d != self.dim
        ):
            log.info("rebuilding %s index: file is out of date", self.table)
            return False
        # read_index already returns the concrete class and owns it; a
        # downcast_index wrapper would not, and the index would be freed under it.
        if not isinstance(index, faiss.IndexIDMap2):
            return False
        self.index = index
        return True

    def rebuild(self) -> None:
        """Recreate the index from the embedding blobs in SQLite."""
        self.index = self._new_index()
        cursor = self.store.execute(
            f"SELECT id, embedding FROM {self.table} WHERE embedding IS NOT NULL ORDER BY id"
        )
        while rows := cursor.fetchmany(8192):
            ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
            vectors = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
            self.index.add_with_ids(vectors.reshape(len(rows), self.dim), ids)

    def save(self) -> None:
        """Write the index and its generation, atomically, if it has a file."""
        if self.file is None:
            return
        tmp = self.file.with_suffix(".tmp")
        faiss.write_index(self.index, str(tmp))
        os.replace(tmp, self.file)
        info = {"generation": self.generation, "dim": self.dim, "count": int(self.index.ntotal)}
        sidecar_tmp = self.file.with_suffix(".json.tmp")
        sidecar_tmp.write_text(json.dumps(info))
        os.replace(sidecar_tmp, self.file.with_suffix(".json"))

    # -- changes (call inside a store transaction) ---------------------------------------
    def _bump(self) -> None:
        self.store.set_meta(self._generation_key, self.generation + 1)

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        ids = np.ascontiguousarray(ids, dtype=np.int64)
        vectors = np.ascontiguousarray(vectors, dtype=np.float32).reshape(len(ids), self.dim)
        self._bump()
        self.index.add_with_ids(vectors, ids)
        self._journal.append((self.store.depth, "add", ids, None))

    def remove(self, ids: np.ndarray) -> None:
        ids = np.ascontiguousarray(ids, dtype=np.int64)
        present = [i for i in ids.tolist() if self._has(i)]
        if not present:
            return
        kept = np.stack([self.index.reconstruct(i) for i in present])
        self._bump()
        # faiss's wrapper turns an id array into an IDSelectorBatch.
        self.index.remove_ids(np.asarray(present, dtype=np.int64))  # type: ignore[arg-type]
        self._journal.append((self.store.depth, "remove", np.asarray(present, dtype=np.int64),
                              kept))

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
                self.index.remove_ids(ids)
            elif vectors is not None:
                self.index.add_with_ids(vectors, ids)

    def _committed(self) -> None:
        self._journal.clear()

    def _released(self) -> None:
        # A released savepoint's changes now belong to the enclosing transaction.
        depth = self.store.depth
        self._journal[:] = [(min(d, depth), kind, ids, vectors)
                            for d, kind, ids, vectors in self._journal]

    # -- search ---------------------------------------------------------------------------
    def __len__(self) -> int:
        return int(self.index.ntotal)

    def search(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Top ``k`` (ids, similarities) for one unit query vector, best first."""
        if self.index.ntotal == 0 or k <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        single_thread_search()
        q = np.ascontiguousarray(query, dtype=np.float32).reshape(1, self.dim)
        sims, ids = self.index.search(q, min(k, int(self.index.ntotal)))
        keep = ids[0] >= 0
        return ids[0][keep], sims[0][keep]

    def above(self, query: np.ndarray, threshold: float) -> tuple[np.ndarray, np.ndarray]:
        """Every (id, similarity) with similarity >= threshold, best first."""
        if self.index.ntotal == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        single_thread_search()
        q = np.ascontiguousarray(query, dtype=np.float32).reshape(1, self.dim)
        lims, sims, ids = self.index.range_search(q, float(threshold))
        sims, ids = sims[lims[0] : lims[1]], ids[lims[0] : lims[1]]
        order = np.argsort(-sims, kind="stable")
        return ids[order], sims[order]


def vector_blob(vector: np.ndarray) -> bytes:
    return np.ascontiguousarray(vector, dtype=np.float32).tobytes()


def remove_index_files(file: Path) -> None:
    for path in (file, file.with_suffix(".json")):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


__all__ = ["VectorIndex", "remove_index_files", "single_thread_search", "vector_blob"]

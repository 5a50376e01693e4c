"""A COMMIT that fails (disk full) rolls every in-memory structure back, exactly like a
failed body: FAISS, the core heap, the tick and the counters end as the database is."""

from __future__ import annotations

import contextlib
import copy
import errno
import os
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from memory_helpers import (
    check_archival_consistent,
    check_core_invariants,
    make_memory,
    mounted_tmpfs,
)

from tiermem.memory.errors import ReadOnlyError, StoreFullError, TiermemError
from tiermem.memory.hierarchy import HierarchicalMemory

SECRET = "the launch code for the orbital platform is 7243"


class CommitFails:
    """A connection whose next COMMIT fails as SQLite does when the disk is full.

    ``sqlite_rolled_back``: SQLite itself ended the transaction before reporting
    the error (what a real SQLITE_FULL at COMMIT does in WAL mode); otherwise the
    transaction is left open, which SQLite also allows for some errors.
    """

    def __init__(self, conn: sqlite3.Connection, sqlite_rolled_back: bool,
                 code: str = "SQLITE_FULL", message: str = "database or disk is full") -> None:
        self._conn = conn
        self._sqlite_rolled_back = sqlite_rolled_back
        self._code, self._message = code, message
        self.failed = 0

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        if sql == "COMMIT" and not self.failed:
            self.failed += 1
            if self._sqlite_rolled_back:
                self._conn.execute("ROLLBACK")
            error = sqlite3.OperationalError(self._message)
            error.sqlite_errorcode = getattr(sqlite3, self._code)  # type: ignore[attr-defined]
            error.sqlite_errorname = self._code  # type: ignore[attr-defined]
            raise error
        return self._conn.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def _faiss_ids(m: HierarchicalMemory) -> list[int]:
    import faiss

    return sorted(faiss.vector_to_array(m.archival.vectors.index.id_map).tolist())


def _rowids_with_vectors(m: HierarchicalMemory) -> list[int]:
    return [r[0] for r in m.store.execute(
        "SELECT id FROM passages WHERE embedding IS NOT NULL ORDER BY id")]


def _eviction_order(m: HierarchicalMemory) -> list[int]:
    heap = copy.deepcopy(m.core._heap)
    order = []
    while (fact := heap.pop_min()) is not None:
        order.append(fact.id)
    return order


def _in_memory_state(m: HierarchicalMemory) -> dict[str, Any]:
    return {
        "core": [f.to_dict() for f in m.core],
        "eviction_order": _eviction_order(m),
        "core_used": m.core.used,
        "tick": m.tick,
        "totals": dict(m.totals),
        "counters": dict(m.counters),
        "archival": len(m.archival),
        "recall": len(m.recall),
        "archival_vectors": _faiss_ids(m),
        "recall_vectors": m.recall.vectors.index.ntotal,
    }


def _seed(m: HierarchicalMemory) -> None:
    for i in range(3):
        m.add_fact(f"fact {i} about the tokyo office", "durable")
    m.archival_insert("the billing runbook lives in the ops wiki")
    m.process_interaction("The production region is eu-west-1.", "Noted.")
    m.archival_search("billing runbook")


def _failing_write(m: HierarchicalMemory) -> None:
    """One interaction that touches every in-memory structure."""
    with m.interaction():
        m.add_fact("a brand new fact about the berlin office", "durable")  # evicts one
        m.add_fact("fact 1 about the tokyo office")  # re-assertion
        m.archival_insert(SECRET)
        m.process_interaction("Right now the pod is restarting.", "Checking.")
        m.archival_search("tokyo office")


def _check_after_failure(m: HierarchicalMemory, before: dict[str, Any]) -> None:
    assert _in_memory_state(m) == before
    assert _faiss_ids(m) == _rowids_with_vectors(m)
    assert m.archival_search("launch code orbital platform 7243").total == 0
    check_core_invariants(m)
    check_archival_consistent(m)
    # The next insert takes the rowid the failed one had: FAISS must not hold two
    # vectors under it, and the text that was never stored must not find it.
    new_id = m.archival_insert("invoices are due monthly")
    assert _faiss_ids(m) == _rowids_with_vectors(m)
    assert len(set(_faiss_ids(m))) == m.archival.vectors.index.ntotal
    assert [h.text for h in m.archival_search("launch code orbital platform 7243").hits] == []
    stored = m.store.execute("SELECT embedding FROM passages WHERE id = ?", (new_id,)).fetchone()
    assert np.array_equal(m.archival.vectors.index.reconstruct(new_id),
                          np.frombuffer(stored[0], dtype=np.float32))


@pytest.mark.parametrize("sqlite_rolled_back", [True, False],
                         ids=["sqlite-rolled-back", "transaction-left-open"])
def test_a_failed_commit_rolls_back_every_in_memory_structure(
        tmp_path: Path, sqlite_rolled_back: bool) -> None:
    path = tmp_path / "agent"
    with make_memory(path, core_limit=3, core_limit_unit="facts") as m:
        _seed(m)
        before = _in_memory_state(m)
        failing = CommitFails(m.store.conn, sqlite_rolled_back)
        m.store.conn = failing  # type: ignore[assignment]
        with pytest.raises(StoreFullError, match="disk") as info:
            _failing_write(m)
        assert failing.failed == 1
        assert "nothing from this write was saved" in str(info.value)
        assert not m.store.conn.in_transaction and not m.store.in_transaction
        _check_after_failure(m, before)
        m.store.conn = failing._conn
        state = _in_memory_state(m)
    with make_memory(path, core_limit=3, core_limit_unit="facts") as reopened:
        assert _in_memory_state(reopened) == state


def test_a_failed_commit_of_a_single_insert_leaves_no_vector(tmp_path: Path) -> None:
    with make_memory(tmp_path / "agent") as m:
        m.archival_insert("the billing runbook lives in the ops wiki")
        before = _faiss_ids(m)
        m.store.conn = CommitFails(m.store.conn, True)  # type: ignore[assignment]
        with pytest.raises(TiermemError):
            m.archival_insert(SECRET)
        assert _faiss_ids(m) == before == _rowids_with_vectors(m)
        assert len(m.archival) == 1


def test_a_write_to_files_that_became_read_only_names_their_permissions(
        tmp_path: Path) -> None:
    # SQLite reports a database file or file system that cannot be written, under a memory
    # opened for writing, as it reports a read-only open: the advice covers both.
    with make_memory(tmp_path / "agent") as m:
        m.archival_insert("the billing runbook lives in the ops wiki")
        m.store.conn = CommitFails(  # type: ignore[assignment]
            m.store.conn, True, "SQLITE_READONLY", "attempt to write a readonly database")
        with pytest.raises(ReadOnlyError) as info:
            m.archival_insert(SECRET)
        said = str(info.value)
        assert "its database file or the file system holding it is read-only" in said
        assert f"make {tmp_path / 'agent'} writable" in said
        assert "Open it without read_only=True" in said  # a Python caller's remedy
        assert "nothing was changed" in said
        assert len(m.archival) == 1 and _faiss_ids(m) == _rowids_with_vectors(m)


# -- a real full disk --------------------------------------------------------------------------


def _fill_disk(directory: Path) -> Path:
    filler = directory / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError as exc:
        assert exc.errno == errno.ENOSPC
    finally:
        os.close(fd)
    return filler


def test_a_full_disk_at_commit_leaves_memory_as_committed(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    with mounted_tmpfs(tmp_path, "4m") as disk:
        path = disk / "agent"
        m = make_memory(path, core_limit=3, core_limit_unit="facts")
        try:
            _seed(m)
            before = _in_memory_state(m)
            filler = _fill_disk(disk)
            with pytest.raises(StoreFullError):
                _failing_write(m)
            filler.unlink()
            _check_after_failure(m, before)
            state = _in_memory_state(m)
        finally:
            with contextlib.suppress(TiermemError):
                m.close()
        with make_memory(path, core_limit=3, core_limit_unit="facts") as reopened:
            assert _in_memory_state(reopened) == state

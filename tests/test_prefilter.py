"""The 8-bit prefilter: its answers must be exactly those of a float32 scan."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import tiermem.memory.store.sqlite.vectors as vector_index
from tests.memory_helpers import make_memory
from tiermem.memory.store.sqlite import SQLiteStore
from tiermem.memory.store.sqlite.prefilter import MAX_ERROR_BOUND, Prefilter
from tiermem.memory.store.sqlite.vectors import FaissIndex

DIM = 64


def unit_rows(rng: np.random.Generator, n: int, spread: float = 1.0) -> np.ndarray:
    """Rows around one shared direction, so many similarities crowd near the top."""
    shared = rng.standard_normal(DIM).astype(np.float32)
    rows = shared + spread * rng.standard_normal((n, DIM)).astype(np.float32)
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def brute_top(ids: np.ndarray, rows: np.ndarray, q: np.ndarray, k: int) -> set[int]:
    sims = rows @ q
    return {int(i) for i in ids[np.argsort(-sims, kind="stable")[:k]]}


def brute_above(ids: np.ndarray, rows: np.ndarray, q: np.ndarray, t: float) -> set[int]:
    return {int(i) for i in ids[rows @ q >= t]}


def check_exact(index: FaissIndex, ids: np.ndarray, rows: np.ndarray,
                queries: np.ndarray) -> None:
    for q in queries:
        got, sims = index.search(q, 10)
        assert index.prefilter is not None  # built by the first search
        exact = rows @ q
        # Same similarities as the float scan, and no row outside beats the 10th.
        np.testing.assert_allclose(np.sort(sims)[::-1], np.sort(exact)[::-1][:10], atol=1e-5)
        assert set(got.tolist()) == brute_top(ids, rows, q, 10) or np.isclose(
            sims[-1], np.sort(exact)[::-1][10], atol=1e-6)  # only a tie may swap the 10th
        # Halfway between two similarities, so float rounding cannot decide a row.
        ranked = np.sort(exact)[::-1]
        threshold = float(ranked[40] + ranked[41]) / 2
        found, found_sims = index.above(q, threshold)
        assert set(found.tolist()) == brute_above(ids, rows, q, threshold)
        assert np.all(np.diff(found_sims) <= 0)


def filled(index: FaissIndex, rows: np.ndarray, step: int = 1) -> np.ndarray:
    """Add ``rows`` to ``index`` in one transaction; returns their ids (multiples of ``step``)."""
    ids = np.arange(len(rows), dtype=np.int64) * step
    with index.store.transaction():
        index.add(ids, rows)
    return ids


@pytest.fixture
def index() -> FaissIndex:
    return FaissIndex(SQLiteStore(None), "passages", DIM, None, prefilter_min_rows=1)


def test_codes_are_faiss_own() -> None:
    rng = np.random.default_rng(1)
    rows = unit_rows(rng, 500)
    prefilter = Prefilter.build(np.arange(500, dtype=np.int64), rows)
    outside = np.eye(DIM, dtype=np.float32)[:8]  # components beyond the trained range
    for batch in (rows, outside, -outside):
        np.testing.assert_array_equal(prefilter.codes(batch),
                                      prefilter.index.sq.compute_codes(batch))


def test_error_bound_covers_every_approximate_similarity() -> None:
    rng = np.random.default_rng(2)
    rows = unit_rows(rng, 2000, spread=0.5)
    prefilter = Prefilter.build(np.arange(2000, dtype=np.int64), rows)
    assert 0 < prefilter.error_bound < MAX_ERROR_BOUND
    for q in unit_rows(rng, 20):
        approx, ids = prefilter.index.search(q[None], 2000)
        error = np.abs(approx[0] - rows[ids[0]] @ q)
        assert error.max() <= prefilter.margin(q[None])
        assert error.max() > 0  # the copy really is approximate


@pytest.mark.parametrize(("seed", "spread"), [(0, 0.3), (1, 1.0), (2, 0.02)])
def test_search_equals_a_float_scan(index: FaissIndex, seed: int, spread: float) -> None:
    # At spread 0.02 thousands of rows lie within the error bound of the 10th best,
    # so the candidate list has to widen several times.
    rng = np.random.default_rng(seed)
    rows = unit_rows(rng, 3000, spread=spread)
    ids = filled(index, rows, step=7)
    check_exact(index, ids, rows, unit_rows(rng, 15, spread=spread))


def test_exact_after_removals_clipped_rows_and_rollback(index: FaissIndex) -> None:
    rng = np.random.default_rng(3)
    rows = unit_rows(rng, 2000, spread=0.3)
    ids = filled(index, rows)
    index.search(rows[0], 10)  # builds the prefilter on this data's range
    built = index.prefilter
    assert built is not None
    with index.store.transaction():
        index.remove(ids[:500])
        spiky = np.eye(DIM, dtype=np.float32)[:3]  # far outside the trained range
        index.add(np.asarray([5000, 5001, 5002], dtype=np.int64), spiky)
    live_ids = np.concatenate([ids[500:], [5000, 5001, 5002]])
    live = np.concatenate([rows[500:], spiky])
    # The clipped rows loosened the bound past the limit: the next search retrains.
    assert built.stale
    check_exact(index, live_ids, live, np.concatenate([unit_rows(rng, 5, 0.3), spiky]))
    assert index.prefilter is not None and index.prefilter is not built
    assert not index.prefilter.stale
    with pytest.raises(RuntimeError), index.store.transaction():
        index.remove(live_ids[:100])
        index.add(np.asarray([9000], dtype=np.int64), rows[:1])
        raise RuntimeError("roll back")
    assert index.prefilter is not None
    assert len(index.prefilter) == len(index) == len(live_ids)
    check_exact(index, live_ids, live, unit_rows(rng, 5, 0.3))


def test_small_indexes_scan_the_floats() -> None:
    small = FaissIndex(SQLiteStore(None), "passages", DIM, None, prefilter_min_rows=100)
    rows = unit_rows(np.random.default_rng(4), 99)
    with small.store.transaction():
        small.add(np.arange(99, dtype=np.int64), rows)
    assert set(small.search(rows[0], 5)[0].tolist()) == brute_top(np.arange(99), rows,
                                                                  rows[0], 5)
    assert small.prefilter is None


def test_prefilter_is_saved_and_reloaded(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vector_index, "PREFILTER_MIN_ROWS", 10)
    texts = [f"note {i} about topic {i % 13} and item {i * 7}" for i in range(60)]
    with make_memory(tmp_path) as m:
        for text in texts:
            m.archival_insert(text)
        expected = m.archival_search("topic 5 item", k=5)
        assert m.archival.vectors.prefilter is not None
        bound = m.archival.vectors.prefilter.error_bound
    assert (tmp_path / "archival.sq8").exists()
    with make_memory(tmp_path) as m:
        loaded = m.archival.vectors.prefilter
        assert loaded is not None and loaded.error_bound == bound
        assert [h.id for h in m.archival_search("topic 5 item", k=5).hits] == [
            h.id for h in expected.hits]
    sidecar = tmp_path / "archival.json"
    info = json.loads(sidecar.read_text())
    info["prefilter"]["range"][1] *= 2  # as if the copy had been retrained since
    sidecar.write_text(json.dumps(info))
    with make_memory(tmp_path) as m:
        assert m.archival.vectors.prefilter is None  # not trusted with another copy's bound
    (tmp_path / "archival.sq8").write_bytes(b"not an index")
    with make_memory(tmp_path) as m:
        assert m.archival.vectors.prefilter is None  # unreadable: built again when needed
        assert [h.id for h in m.archival_search("topic 5 item", k=5).hits] == [
            h.id for h in expected.hits]
        assert m.archival.vectors.prefilter is not None


def test_nearest_bounds_every_row_left_out(index: FaissIndex) -> None:
    rng = np.random.default_rng(5)
    rows = unit_rows(rng, 3000, spread=0.3)
    ids = filled(index, rows)
    for q in unit_rows(rng, 10, spread=0.3):
        got, sims, others = index.nearest(q, 50)
        assert index.prefilter is not None and len(got) == 50
        exact = rows @ q
        np.testing.assert_allclose(sims, exact[got], atol=1e-5)  # exact, best first
        assert np.all(np.diff(sims) <= 0)
        left_out = np.setdiff1d(ids, got)
        assert exact[left_out].max() <= others
        assert others < sims[0]  # a bound that still says something
    everything = index.nearest(rows[0], 5000)
    assert len(everything[0]) == 3000 and everything[2] == float("-inf")


def test_a_bound_loose_from_training_does_not_retrain_every_search() -> None:
    # Spiky rows widen the trained range so much that the bound exceeds MAX_ERROR_BOUND
    # straight after training; retraining cannot improve it, so it must not run again.
    dim = 1536
    index = FaissIndex(SQLiteStore(None), "passages", dim, None, prefilter_min_rows=1)
    rng = np.random.default_rng(6)
    rows = rng.standard_normal((200, dim)).astype(np.float32)
    rows = np.concatenate([rows / np.linalg.norm(rows, axis=1, keepdims=True),
                           np.eye(dim, dtype=np.float32)[:4]])
    filled(index, rows)
    index.search(rows[0], 10)
    built = index.prefilter
    assert built is not None and built.error_bound > MAX_ERROR_BOUND and not built.stale
    index.search(rows[1], 10)
    assert index.prefilter is built


def test_a_similarity_equal_to_the_threshold_is_above_it() -> None:
    q = np.zeros(DIM, dtype=np.float32)
    q[0] = 1.0
    row = np.zeros(DIM, dtype=np.float32)
    row[0], row[1] = 0.5, np.sqrt(0.75)
    for min_rows in (10**6, 1):  # the float scan, then the prefilter
        index = FaissIndex(SQLiteStore(None), "passages", DIM, None, prefilter_min_rows=min_rows)
        filled(index, np.stack([row, np.roll(row, 5)]))
        assert index.above(q, 0.5)[0].tolist() == [0]

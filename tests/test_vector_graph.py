"""The HNSW graph behind approximate vector search: used from its size on and not below,
close to exact on clustered vectors, saved with the index and never trusted when stale."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from tests.memory_helpers import make_memory
from tiermem.memory.errors import InvalidInputError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.search.fusion import APPROXIMATE_DENSE_WINDOW
from tiermem.memory.store.sqlite import SQLiteStore
from tiermem.memory.store.sqlite.vectors import FaissIndex
from tiermem.memory.tiers.recall import RECALL_WINDOW, NewMessage

DIM = 32


def clustered(rng: np.random.Generator, n: int, clusters: int = 40) -> np.ndarray:
    """Unit rows around ``clusters`` centres, as sentence embeddings cluster by topic."""
    centres = rng.standard_normal((clusters, DIM)).astype(np.float32)
    rows = centres[rng.integers(0, clusters, n)] + 0.35 * rng.standard_normal(
        (n, DIM)).astype(np.float32)
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def index_of(rows: np.ndarray, **options: object) -> FaissIndex:
    index = FaissIndex(SQLiteStore(None), "passages", DIM, None, **options)  # type: ignore[arg-type]
    with index.store.transaction():
        index.add(np.arange(1, len(rows) + 1, dtype=np.int64), rows)
    return index


def test_auto_searches_through_the_graph_from_its_size_on_and_not_below() -> None:
    rng = np.random.default_rng(1)
    rows = clustered(rng, 400)
    index = index_of(rows[:299], vector_index="auto", graph_min_rows=300)
    index.search(rows[0], 10)
    index.nearest(rows[0], 50)
    assert (index.answered_by, index.graph) == ("exact", None)
    assert index.graph_upkeep.graphs_built == 0
    with index.store.transaction():
        index.add(np.array([300], dtype=np.int64), rows[299:300])
    index.search(rows[0], 10)
    assert (index.answered_by, index.graph_upkeep.graphs_built) == ("hnsw", 1)
    assert index.graph is not None and len(index.graph) == 300
    # Kept up to date on later writes rather than built again.
    with index.store.transaction():
        index.add(np.arange(301, 401, dtype=np.int64), rows[300:])
    index.nearest(rows[0], 50)
    assert (index.answered_by, len(index.graph)) == ("hnsw", 400)
    assert index.graph_upkeep.graphs_built == 1

    exact = index_of(rows, vector_index="exact", graph_min_rows=1)
    exact.search(rows[0], 10)
    assert (exact.answered_by, exact.graph) == ("exact", None)


def test_graph_search_finds_the_exact_top_10_on_clustered_vectors() -> None:
    rng = np.random.default_rng(2)
    rows = clustered(rng, 4000)
    index = index_of(rows, vector_index="hnsw")
    queries = clustered(rng, 50)
    found = 0
    for q in queries:
        ids, sims = index.search(q, 10)
        assert index.answered_by == "hnsw"
        truth = np.argsort(-(rows @ q), kind="stable")[:10] + 1
        found += len(set(ids.tolist()) & set(truth.tolist()))
        # Whatever rows it proposes, their similarities are the exact ones.
        np.testing.assert_allclose(sims, rows[ids - 1] @ q, atol=1e-5)
        near, near_sims, bound = index.nearest(q, 100)
        assert len(near) == 100 and np.all(np.diff(near_sims) <= 0) and bound <= near_sims[-1]
    assert found / (10 * len(queries)) >= 0.95


def test_removed_rows_leave_the_graph_and_a_worn_graph_is_built_again() -> None:
    rng = np.random.default_rng(3)
    rows = clustered(rng, 1000)
    index = index_of(rows, vector_index="hnsw")
    index.search(rows[0], 10)
    gone = np.arange(1, 201, dtype=np.int64)
    with index.store.transaction():
        index.remove(gone)
    assert index.graph is not None and len(index.graph) == 800
    assert index.graph_upkeep.graphs_built == 1
    for q in rows[:200]:  # each removed row's own vector: it would be its nearest
        assert not set(index.search(q, 10)[0].tolist()) & set(gone.tolist())
    with index.store.transaction():
        index.remove(np.arange(201, 301, dtype=np.int64))
    index.search(rows[0], 10)  # 300 of 1000 removed: past a quarter
    assert index.graph_upkeep.graphs_built == 2
    assert index.graph.removed == 0 and len(index.graph) == 700


def _archive(memory_home: Path, count: int, start: int = 0) -> None:
    with make_memory(memory_home, vector_index="hnsw") as memory:
        for i in range(start, start + count):
            memory.archival_insert(f"note {i}: the {['red', 'blue', 'green'][i % 3]} "
                                   f"valve {i % 7} needs grease")
        _nearest(memory)  # builds the graph, saved on close


def _nearest(memory: HierarchicalMemory) -> list[int]:
    # Archival search takes every row past the threshold (an exact scan); the graph
    # answers searches for the nearest rows.
    query = memory.embedder.embed_query("blue valve grease")
    return [int(i) for i in memory.archival.vectors.search(query, 5)[0]]


def _builds_on_reopen(home: Path) -> tuple[int, list[int]]:
    with make_memory(home, vector_index="hnsw") as memory:
        hits = _nearest(memory)
        index = memory.archival.vectors
        assert index.answered_by == "hnsw" and index.differences() == []
        return index.graph_upkeep.graphs_built, hits


def test_a_saved_graph_is_reused_and_a_damaged_or_stale_one_is_built_again(
        tmp_path: Path) -> None:
    home = tmp_path / "agent"
    _archive(home, 60)
    assert (home / "archival.hnsw").exists()
    assert "graph" in json.loads((home / "archival.json").read_text())
    builds, hits = _builds_on_reopen(home)
    assert builds == 0 and hits

    # Damaged bytes: the sidecar's checksum no longer matches.
    data = bytearray((home / "archival.hnsw").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (home / "archival.hnsw").write_bytes(bytes(data))
    assert _builds_on_reopen(home) == (1, hits)

    # Stale: the files saved before more rows were written, put back after.
    saved = tmp_path / "saved"
    saved.mkdir()
    for name in ("archival.faiss", "archival.json", "archival.hnsw"):
        shutil.copy(home / name, saved / name)
    _archive(home, 30, start=60)
    for name in ("archival.faiss", "archival.json", "archival.hnsw"):
        shutil.copy(saved / name, home / name)
    with make_memory(home, vector_index="hnsw") as memory:
        _nearest(memory)
        index = memory.archival.vectors
        assert index.graph_upkeep.graphs_built == 1 and len(index.graph) == 90
        assert index.differences() == []


def test_a_graph_file_holding_other_rows_is_never_trusted(tmp_path: Path) -> None:
    home = tmp_path / "agent"
    _archive(home, 40)
    # A graph of other rows under a sidecar entry that vouches for its bytes.
    other = tmp_path / "other"
    _archive(other, 41)
    shutil.copy(other / "archival.hnsw", home / "archival.hnsw")
    info = json.loads((home / "archival.json").read_text())
    info["graph"] = json.loads((other / "archival.json").read_text())["graph"]
    (home / "archival.json").write_text(json.dumps(info))
    builds, _ = _builds_on_reopen(home)
    assert builds == 1


@pytest.mark.parametrize("options, named", [
    ({"vector_index": "fast"}, "vector_index='fast'"),
    ({"ef_search": 0}, "ef_search=0"),
    ({"ef_search": 5000}, "ef_search=5000"),
])
def test_bad_vector_settings_are_refused_saying_what_is_allowed(
        tmp_path: Path, options: dict[str, object], named: str) -> None:
    with pytest.raises(InvalidInputError) as caught:
        make_memory(tmp_path / "agent", **options)
    assert named in str(caught.value)
    assert not (tmp_path / "agent").exists() or not any((tmp_path / "agent").iterdir())


def test_ef_search_beside_exact_search_is_refused_naming_what_to_pass(tmp_path: Path) -> None:
    from tiermem.memory.errors import InvalidConfigError

    # Before: the memory opened, searching exactly, the ef_search given ignored.
    with pytest.raises(InvalidConfigError) as caught:
        make_memory(tmp_path / "agent", vector_index="exact", ef_search=40)
    assert caught.value.fields == ("ef_search", "vector_index")
    assert str(caught.value).startswith("ef_search=40 and vector_index='exact' contradict")
    assert "give vector_index as hnsw or auto with ef_search, or leave ef_search out" in str(
        caught.value)
    assert not (tmp_path / "agent").exists() or not any((tmp_path / "agent").iterdir())
    make_memory(tmp_path / "agent", vector_index="auto", ef_search=40).close()


def _count_searches(index: FaissIndex, calls: list[tuple[str, int]]) -> None:
    nearest, above = index.nearest, index.above

    def counted_nearest(q: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, float]:
        calls.append(("nearest", k))
        return nearest(q, k)

    def counted_above(q: np.ndarray, t: float) -> tuple[np.ndarray, np.ndarray]:
        calls.append(("above", 0))
        return above(q, t)

    index.nearest, index.above = counted_nearest, counted_above  # type: ignore[method-assign]


def test_recall_search_takes_a_short_nearest_list_from_an_approximate_index(
        tmp_path: Path) -> None:
    words = ["valve", "grease", "pump", "boiler", "filter", "gauge", "hose", "seal"]
    chat = [NewMessage("user" if i % 2 else "assistant",
                       f"the {words[i % 8]} and the {words[(i * 3) % 8]} item{i}", turn=i)
            for i in range(600)]
    asked: dict[str, list[tuple[str, int]]] = {}
    for mode in ("hnsw", "exact"):
        with make_memory(tmp_path / mode, recall_dense=True, vector_index=mode) as memory:
            memory.recall.append_many(chat, bulk=True)
            index = memory.recall.vectors
            assert isinstance(index, FaissIndex)
            _count_searches(index, asked.setdefault(mode, []))
            result = memory.recall_search("valve grease pump", k=5)
            assert result.hits and index.answered_by == mode
    # The exact index is asked for the whole window, the graph for its short list only.
    assert asked["exact"] == [("nearest", RECALL_WINDOW)]
    assert asked["hnsw"] == [("nearest", APPROXIMATE_DENSE_WINDOW)]


def test_a_rows_similarity_is_the_same_float_whichever_search_found_it() -> None:
    rng = np.random.default_rng(7)
    rows = clustered(rng, 3000)
    index = index_of(rows, vector_index="exact")
    q = clustered(rng, 1)[0]
    ids, sims = index.above(q, -1.0)
    scanned = dict(zip(ids.tolist(), sims.tolist(), strict=True))
    looked_up = index.similarities(ids.tolist(), q)
    top_ids, top_sims = index.search(q, 50)
    # Bit for bit: fused scores built from either must not reorder near-ties.
    assert looked_up == scanned
    assert dict(zip(top_ids.tolist(), top_sims.tolist(), strict=True)) == {
        i: scanned[i] for i in top_ids.tolist()}
    assert index._rescored(ids[:100], q[None, :])[1].tolist() == sorted(
        (scanned[i] for i in ids[:100].tolist()), reverse=True)

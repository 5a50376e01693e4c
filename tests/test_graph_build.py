"""The HNSW graph is built off the searching thread: searches scan exactly until it is
ready, changes made meanwhile reach it, a worn graph answers until its successor is
ready, and a build that fails or outlives its store leaves exact search answering."""

from __future__ import annotations

import gc
import logging
import threading
import weakref
from pathlib import Path

import faiss
import numpy as np
import pytest

from tests.memory_helpers import make_memory
from tiermem.memory.search.fusion import APPROXIMATE_DENSE_WINDOW
from tiermem.memory.store.sqlite import SQLiteStore
from tiermem.memory.store.sqlite import graph as graph_module
from tiermem.memory.store.sqlite.graph import GraphBuild, in_background
from tiermem.memory.store.sqlite.vectors import FaissIndex, single_thread_search
from tiermem.memory.tiers.recall import RECALL_WINDOW, NewMessage

DIM = 16


class Held:
    """Starts nothing: the test runs each build when it chooses."""

    def __init__(self) -> None:
        self.builds: list[GraphBuild] = []

    def __call__(self, build: GraphBuild) -> None:
        self.builds.append(build)


def unit_rows(n: int, seed: int) -> np.ndarray:
    rows = np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def index_of(rows: np.ndarray, file: Path | None = None) -> FaissIndex:
    index = FaissIndex(SQLiteStore(None), "passages", DIM, file, vector_index="hnsw")
    with index.store.transaction():
        index.add(np.arange(1, len(rows) + 1, dtype=np.int64), rows)
    return index


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Held:
    starter = Held()
    monkeypatch.setattr(FaissIndex, "start_graph_build", staticmethod(starter))
    return starter


def test_searches_scan_until_the_graph_is_ready_and_changes_meanwhile_reach_it(
        held: Held) -> None:
    rows = unit_rows(600, seed=1)
    index = index_of(rows[:500])
    exact_ids, _ = index.search(rows[0], 10)
    assert index.answered_by == "exact" and index.graph is None and len(held.builds) == 1
    index.search(rows[1], 10)
    assert len(held.builds) == 1  # one build at a time
    with index.store.transaction():
        index.add(np.arange(501, 551, dtype=np.int64), rows[500:550])
        index.remove(np.arange(1, 11, dtype=np.int64))
    with pytest.raises(RuntimeError), index.store.transaction():
        index.add(np.arange(551, 601, dtype=np.int64), rows[550:])
        raise RuntimeError("rolled back")
    held.builds[0].run()
    ids, _ = index.search(rows[0], 10)
    assert index.answered_by == "hnsw" and index.graph_upkeep.graphs_built == 1
    graph = index.graph
    assert graph is not None and index.graph_upkeep.build is None
    # The graph holds the index's rows: the copy's, plus the added, less the removed and
    # the rolled back.
    assert sorted(graph.live_ids().tolist()) == sorted(index.ids().tolist()) == list(
        range(11, 551))
    assert 1 not in ids.tolist()  # row 1 was removed; its own vector would find it first
    assert exact_ids[0] == 1


def test_a_real_thread_builds_it_and_wait_for_graph_waits(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(FaissIndex, "start_graph_build", staticmethod(in_background))
    rows = unit_rows(2000, seed=2)
    index = index_of(rows)
    index.wait_for_graph()
    assert index.graph is not None and len(index.graph) == 2000
    ids, _ = index.search(rows[5], 10)
    assert index.answered_by == "hnsw" and ids[0] == 6


def test_a_worn_graph_answers_until_its_successor_is_ready(held: Held) -> None:
    rows = unit_rows(400, seed=3)
    index = index_of(rows)
    index.search(rows[0], 10)
    held.builds[0].run()
    index.search(rows[0], 10)
    first = index.graph
    assert first is not None and index.graph_upkeep.graphs_built == 1
    with index.store.transaction():
        index.remove(np.arange(1, 121, dtype=np.int64))  # 30%: worn
    assert first.worn
    index.search(rows[200], 10)
    assert index.answered_by == "hnsw" and index.graph is first and len(held.builds) == 2
    held.builds[1].run()
    index.search(rows[200], 10)
    assert index.graph is not first and index.graph is not None
    assert index.graph.removed == 0 and len(index.graph) == 280
    assert index.graph_upkeep.graphs_built == 2


def test_a_failed_build_leaves_exact_search_answering(
        held: Held, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    def no_memory(*args: object, **kwargs: object) -> None:
        raise MemoryError("cannot allocate the graph")

    monkeypatch.setattr(graph_module.Graph, "build", no_memory)
    rows = unit_rows(300, seed=4)
    index = index_of(rows)
    index.search(rows[0], 10)
    held.builds[0].run()
    with caplog.at_level(logging.WARNING):
        ids, _ = index.search(rows[0], 10)
    assert index.answered_by == "exact" and ids[0] == 1
    assert "could not be built" in caplog.text and "cannot allocate" in caplog.text
    index.search(rows[0], 10)
    index.wait_for_graph()  # returns: this session does not try again
    assert len(held.builds) == 1 and index.graph is None


def test_a_build_stops_when_its_store_closes(
        held: Held, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(graph_module, "BUILD_STEP", 100)
    rows = unit_rows(500, seed=5)
    index = index_of(rows)
    index.search(rows[0], 10)
    build = held.builds[0]
    index.store.close()
    build.run()
    assert build.finished and build.linked == 0 and build.take() is None


def test_save_writes_the_graph_once_it_is_ready(held: Held, tmp_path: Path) -> None:
    rows = unit_rows(300, seed=6)
    store = SQLiteStore(tmp_path / "memory.db")
    index = FaissIndex(store, "passages", DIM, tmp_path / "passages.faiss", vector_index="hnsw")
    with store.transaction():
        index.add(np.arange(1, 301, dtype=np.int64), rows)
    index.search(rows[0], 10)
    index.save()
    assert not (tmp_path / "passages.hnsw").exists()  # still building
    held.builds[0].run()
    index.save()
    assert (tmp_path / "passages.hnsw").exists() and index.graph is not None


def test_no_thread_for_the_build_leaves_exact_search_answering(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    def no_thread(build: GraphBuild) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(FaissIndex, "start_graph_build", staticmethod(no_thread))
    rows = unit_rows(300, seed=7)
    index = index_of(rows)
    with caplog.at_level(logging.WARNING):
        ids, _ = index.search(rows[3], 10)
    assert index.answered_by == "exact" and ids[0] == 4 and "could not be started" in caplog.text
    index.wait_for_graph()  # returns at once rather than waiting for a build that never runs
    with index.store.transaction():  # nothing is kept for a build that is not running
        index.add(np.array([301], dtype=np.int64), unit_rows(1, seed=8))
    assert index.graph_upkeep.build is None and index.graph is None


def test_running_out_of_memory_while_taking_the_graph_leaves_exact_search_answering(
        held: Held, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_memory(self: GraphBuild) -> None:
        raise MemoryError("applying the changes")

    rows = unit_rows(300, seed=9)
    index = index_of(rows)
    index.search(rows[0], 10)
    held.builds[0].run()
    monkeypatch.setattr(GraphBuild, "take", no_memory)
    index.search(rows[0], 10)
    assert index.answered_by == "exact" and index.graph is None
    index.search(rows[0], 10)
    assert len(held.builds) == 1  # not started again in this session


def test_a_query_of_another_size_is_refused_not_read_past() -> None:
    rows = unit_rows(10, seed=10)
    index = index_of(rows)
    with pytest.raises(ValueError):
        index.similarities([1, 2], np.ones(DIM * 2, dtype=np.float32))
    assert index.similarities([1], rows[0])[1] == pytest.approx(1.0, abs=1e-6)


def test_the_build_links_the_changes_made_meanwhile_itself(
        held: Held, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(graph_module, "CATCH_UP_ROWS", 20)
    rows = unit_rows(720, seed=11)
    index = index_of(rows[:500])
    index.search(rows[0], 10)
    build = held.builds[0]
    with index.store.transaction():
        index.add(np.arange(501, 701, dtype=np.int64), rows[500:700])
        index.remove(np.arange(1, 6, dtype=np.int64))
    assert build.waiting_rows == 205
    build.run()
    # Linked by the build, not left for the search that takes the graph.
    assert build.waiting_rows == 0
    with index.store.transaction():  # a change after the build finished waits for the taker
        index.add(np.arange(701, 711, dtype=np.int64), rows[700:710])
    assert build.waiting_rows == 10
    index.search(rows[600], 10)
    assert index.answered_by == "hnsw" and index.graph is not None
    assert sorted(index.graph.live_ids().tolist()) == list(range(6, 711))


def test_approximate_says_the_exact_scan_answers_until_the_graph_is_ready(
        held: Held) -> None:
    rows = unit_rows(300, seed=12)
    index = index_of(rows)
    assert index.graph_upkeep.wanted and not index.approximate
    assert len(held.builds) == 1  # asking started the build, as a search would
    index.search(rows[0], 10)
    assert index.answered_by == "exact" and not index.approximate
    held.builds[0].run()
    assert index.approximate and index.graph is not None  # asking took the finished graph
    index.search(rows[0], 10)
    assert index.answered_by == "hnsw"


def test_recall_search_keeps_the_exact_window_while_the_graph_is_built(
        held: Held, tmp_path: Path) -> None:
    chat = [NewMessage("user" if i % 2 else "assistant", f"the valve and the pump item{i}",
                       turn=i) for i in range(300)]
    with make_memory(tmp_path / "agent", recall_dense=True, vector_index="hnsw") as memory:
        memory.recall.append_many(chat, bulk=True)
        index = memory.recall.vectors
        assert isinstance(index, FaissIndex)
        asked: list[int] = []
        nearest = index.nearest

        def counted(q: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, float]:
            asked.append(k)
            return nearest(q, k)

        index.nearest = counted  # type: ignore[method-assign]
        memory.recall_search("valve pump", k=5)
        assert index.answered_by == "exact"
        held.builds[0].run()
        memory.recall_search("valve pump", k=5)
        assert index.answered_by == "hnsw"
    # The exact scan is asked for recall's whole window, as below the graph's size; the
    # graph, once it answers, for its short list.
    assert asked == [RECALL_WINDOW, APPROXIMATE_DENSE_WINDOW]


def test_a_background_build_leaves_a_core_to_searches_and_a_waited_one_takes_every_core(
        held: Held, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(graph_module, "available_cores", lambda: 4)
    single_thread_search()  # the searching thread's own OpenMP count
    rows = unit_rows(300, seed=13)
    index = index_of(rows)
    index.search(rows[0], 10)
    linking: list[int] = []  # the OpenMP count of the thread that links, as it links
    build = held.builds[0]
    build.watch(lambda linked, total: linking.append(faiss.omp_get_max_threads()))
    thread = threading.Thread(target=build.run)
    thread.start()
    thread.join()
    assert linking == [3] and faiss.omp_get_max_threads() == 1

    monkeypatch.setattr(FaissIndex, "start_graph_build", staticmethod(in_background))
    waited = index_of(rows)
    waited.wait_for_graph(lambda linked, total: linking.append(faiss.omp_get_max_threads()))
    assert waited.graph is not None and linking == [3, 4]
    assert faiss.omp_get_max_threads() == 1  # the waiting thread's count is untouched


def test_closing_the_store_frees_the_graph_and_a_finished_builds(
        held: Held, caplog: pytest.LogCaptureFixture) -> None:
    rows = unit_rows(300, seed=14)
    index = index_of(rows)
    index.search(rows[0], 10)
    held.builds[0].run()
    index.search(rows[0], 10)
    assert index.graph is not None
    taken = weakref.ref(index.graph)
    with index.store.transaction():  # 30% removed: worn, so a successor is built
        index.remove(np.arange(1, 91, dtype=np.int64))
    index.search(rows[100], 10)
    successor = held.builds[1]
    successor.run()  # finished, not yet taken by a search
    with caplog.at_level(logging.WARNING):
        index.store.close()
    assert index.graph is None and index.graph_upkeep.build is None
    gc.collect()
    assert taken() is None  # nothing keeps the graph the index answered from
    assert successor.take() is None  # nor the one its build finished
    assert "not finished" not in caplog.text


def test_closing_during_a_build_says_how_to_finish_it_once(
        held: Held, caplog: pytest.LogCaptureFixture) -> None:
    rows = unit_rows(300, seed=15)
    index = index_of(rows)
    index.search(rows[0], 10)
    with caplog.at_level(logging.WARNING):
        index.store.close()
    assert "the passages graph was not finished when the memory closed" in caplog.text
    assert "`tiermem index --agent NAME` builds and saves it once" in caplog.text
    held.builds[0].run()
    assert held.builds[0].take() is None and index.graph is None

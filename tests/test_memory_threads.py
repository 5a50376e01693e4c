"""One memory shared by threads: every public method is serialised, so concurrent writes
and searches neither fail nor leave FAISS and SQLite disagreeing."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from memory_helpers import check_archival_consistent, check_core_invariants, make_memory

from tiermem.memory.hierarchy import HierarchicalMemory

ROUNDS = 60


@pytest.fixture
def busy_switching() -> Iterator[None]:
    # Switch threads as often as the interpreter allows, so their operations interleave.
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def _run_together(workers: list[Callable[[], None]]) -> list[BaseException]:
    start = threading.Barrier(len(workers))
    errors: list[BaseException] = []

    def run(work: Callable[[], None]) -> None:
        start.wait()
        try:
            work()
        except BaseException as exc:  # reported to the test, not swallowed
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(w,)) for w in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


@pytest.mark.usefixtures("busy_switching")
def test_two_threads_writing_and_searching_keep_memory_consistent(tmp_path: Path) -> None:
    path = tmp_path / "agent"
    done = {"writes": 0, "searches": 0}

    def writer(m: HierarchicalMemory) -> Callable[[], None]:
        def work() -> None:
            for i in range(ROUNDS):
                m.archival_insert(f"writer passage {i} about kubernetes")
                m.add_fact(f"writer fact {i} about zone z{i}", "short-lived")
                done["writes"] += 2
        return work

    def searcher(m: HierarchicalMemory) -> Callable[[], None]:
        def work() -> None:
            for i in range(ROUNDS):
                m.archival_search("kubernetes passage", k=5)
                m.query(f"zone z{i}")
                m.process_interaction(f"Searcher message {i} about the tokyo office.", "ok")
                done["searches"] += 2
        return work

    m = make_memory(path, core_limit=6, core_limit_unit="facts")
    try:
        errors = _run_together([writer(m), searcher(m)])
        assert errors == []
        assert done == {"writes": 2 * ROUNDS, "searches": 2 * ROUNDS}
        passages = m.store.execute(
            "SELECT count(*) FROM passages WHERE text LIKE 'writer passage %'").fetchone()[0]
        assert passages == ROUNDS
        assert m.archival.vectors.differences() == []
        assert m.recall.vectors is not None and m.recall.vectors.differences() == []
        check_core_invariants(m)
        check_archival_consistent(m)
        assert len(m.recall) == 2 * ROUNDS
        # Each add_fact and each process_interaction was one interaction.
        assert m.tick == 2 * ROUNDS
        facts = [f.to_dict() for f in m.facts()]
    finally:
        m.close()
    with make_memory(path) as reopened:
        assert [f.to_dict() for f in reopened.facts()] == facts
        assert reopened.archival.vectors.differences() == []


@pytest.mark.usefixtures("busy_switching")
def test_an_interaction_in_one_thread_is_not_joined_by_another(tmp_path: Path) -> None:
    with make_memory(tmp_path / "agent") as m:
        inside = threading.Event()

        def long_interaction() -> None:
            with m.interaction():
                m.archival_insert("inside the first thread's interaction")
                inside.set()
                for i in range(ROUNDS):
                    m.archival_insert(f"more of the first thread's interaction {i}")
                raise RuntimeError("the first thread's interaction fails")

        def meanwhile() -> None:
            assert inside.wait(timeout=120)  # a guard against a hang, not a synchronisation
            m.archival_insert("the second thread's own write")

        errors = _run_together([long_interaction, meanwhile])
        assert [str(e) for e in errors] == ["the first thread's interaction fails"]
        # The second thread's write was its own transaction, not part of the one rolled back.
        texts = [r[0] for r in m.store.execute("SELECT text FROM passages")]
        assert texts == ["the second thread's own write"]
        assert m.archival.vectors.differences() == []

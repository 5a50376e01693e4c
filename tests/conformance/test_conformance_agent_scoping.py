"""One agent's search answers do not change when another agent of the same store fills up
with the same words (on PostgreSQL both live in one database and one full-text index)."""

from __future__ import annotations

from backends import Backend

from tiermem.memory.hierarchy import HierarchicalMemory


def _answers(memory: HierarchicalMemory) -> tuple[object, ...]:
    archival = memory.archival_search("zeppelin hangar", k=5)
    recall = memory.recall_search("zeppelin hangar", k=5)
    return (archival.total, [(r.id, round(r.score, 9)) for r in archival.hits],
            recall.total, [(r.id, round(r.score, 9)) for r in recall.hits])


def test_another_agents_matching_rows_change_nothing(backend: Backend) -> None:
    small, large = backend.home(), backend.home()
    with small.open() as memory:
        for i in range(3):
            memory.archival_insert(f"the zeppelin {i} left its hangar at dawn")
            with memory.store.transaction():
                memory.recall.append("user", f"where is zeppelin {i} tonight?", i)
        memory.archival_insert("the lighthouse keeper paints the railings")
        before = _answers(memory)
    with large.open() as memory:
        for i in range(120):
            memory.archival_insert(f"zeppelin hangar {i}: zeppelin zeppelin hangar")
            with memory.store.transaction():
                memory.recall.append("user", f"zeppelin hangar {i} zeppelin", i)
    with small.open() as memory:
        after = _answers(memory)
    assert after == before
    assert before[0] == 3 and before[2] == 3

"""A fact retired as no longer true: kept in archival, marked superseded, never current again
unless stated again."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.tiers.lifecycle import SUPERSEDED_AT
from tiermem.tools.memory_tools import ToolContext, memory_toolbox

T0 = 1_709_618_820.0  # 2024-03-05 06:07 UTC


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder(), promote_hits=1,
                            recent_promote_hits=1, now=lambda: T0) as m:
        yield m


def _retire(memory: HierarchicalMemory, text: str) -> str:
    result = memory_toolbox().dispatch(
        "core_memory_replace", json.dumps({"old_content": text, "new_content": ""}),
        call_id="c1", context=ToolContext(memory=memory, turn=1))
    assert result.ok, result.content
    return result.content


def _search(memory: HierarchicalMemory, query: str) -> list[dict[str, object]]:
    result = memory_toolbox().dispatch(
        "archival_memory_search", json.dumps({"query": query}), call_id="c2",
        context=ToolContext(memory=memory, turn=2))
    return list(json.loads(result.content)["results"])


def test_a_replace_with_nothing_retires_the_fact_marked_superseded(
        memory: HierarchicalMemory) -> None:
    fact_id = memory.add_fact("User lives in Lisbon")
    note = _retire(memory, "User lives in Lisbon")
    assert note.startswith("core -> archival (superseded): User lives in Lisbon")
    assert fact_id not in memory.core
    [hit] = _search(memory, "Lisbon")
    assert hit["text"] == "User lives in Lisbon"
    assert hit["superseded"] == "2024-03-05T06:07Z"
    kinds = [e["kind"] for e in memory.events_since(0)]
    assert kinds == ["add", "retire"]  # a retirement is not an eviction to make room


def test_an_evicted_fact_is_not_marked_superseded(memory: HierarchicalMemory) -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder(), core_limit=8) as tiny:
        tiny.add_fact("User lives in Lisbon")
        tiny.add_fact("User likes green tea a lot")
        [hit] = [h for h in _search(tiny, "Lisbon") if h["text"] == "User lives in Lisbon"]
        assert hit["was_in_core"] is True and "superseded" not in hit


def test_search_hits_never_promote_a_superseded_fact(memory: HierarchicalMemory) -> None:
    fact_id = memory.add_fact("User lives in Lisbon")
    _retire(memory, "User lives in Lisbon")
    for _ in range(3):
        with memory.interaction():
            memory.query("Lisbon")
    fact = memory.fact(fact_id)
    assert fact is not None and fact.tier == "archival"


def test_stating_a_superseded_fact_again_makes_it_current(memory: HierarchicalMemory) -> None:
    fact_id = memory.add_fact("User lives in Lisbon")
    _retire(memory, "User lives in Lisbon")
    assert memory.add_fact("User lives in Lisbon") == fact_id
    assert fact_id in memory.core
    fact = memory.fact(fact_id)
    assert fact is not None and fact.passage_id is not None
    passage = memory.archival.get_many([fact.passage_id])[fact.passage_id]
    assert SUPERSEDED_AT not in passage.metadata
    assert memory.events_since(0)[-1]["detail"] == "stated again after being superseded"

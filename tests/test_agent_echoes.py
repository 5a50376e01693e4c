"""A small model echoes its earlier calls in a later step or turn: each echo gets an answer
that says the work is done, and changes nothing (driven through the agent loop)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tiermem.agent.loop import Agent
from tiermem.agent.scripted import ScriptedModel, call
from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


def snapshot(memory: HierarchicalMemory) -> tuple[list[dict[str, object]], int]:
    return [f.to_dict() for f in memory.facts()], memory.last_event_id()


def test_retiring_a_fact_again_says_it_was_retired(memory: HierarchicalMemory) -> None:
    memory.add_fact("User works at Acme", "durable")
    retire = call("core_memory_replace", old_content="User works at Acme", new_content="",
                  request_heartbeat=True)
    echo = call("core_memory_replace", old_content="User works at Acme", new_content="",
                request_heartbeat=True)
    with ScriptedModel([retire, echo, call("send_message", message="Noted.")]) as model:
        result = Agent(memory, model).step("I left Acme")
    first, again, _ = result.tool_results
    assert first.ok and first.content.startswith("core -> archival (superseded)")
    assert again.ok, again.content
    assert again.content.startswith(
        "Already retired: the fact holding 'User works at Acme' was retired as no longer true")
    assert "nothing was changed" in again.content
    # The next turn's echo, once nothing else happened in between, changes nothing either.
    before = snapshot(memory)
    with ScriptedModel([call("core_memory_replace", old_content="Acme", new_content=""),
                        ]) as model:
        later = Agent(memory, model).step("thanks")
    assert later.tool_results[0].ok and "Already retired" in later.tool_results[0].content
    assert snapshot(memory) == before

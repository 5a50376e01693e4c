"""A name held in full said again shorter ("My brother is Tom" after "... is Tom Smith"):
the offline policy reads it as the fact held said again, and the reply says so."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import RecordingPolicy, chat, core_of

from tiermem.agent.loop import Agent
from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize("again", ["My brother is Tom.", "My brother is Tom now."])
def test_the_short_name_replies_as_the_full_one_said_again(memory: HierarchicalMemory,
                                                           again: str) -> None:
    replies = chat(memory, "My brother is Tom Smith.", "My brother is Tom Smith.", again)
    assert list(core_of(memory)) == ["User's brother is Tom Smith"]
    assert replies[2] == replies[1]
    assert "Already in core" in replies[2]


def test_the_fact_said_again_is_the_one_held(memory: HierarchicalMemory) -> None:
    chat(memory, "My brother is Tom Smith and he lives in Oslo.")
    held = list(core_of(memory))
    policy = RecordingPolicy()
    Agent(memory, policy).step("My brother is Tom.")
    appended = [args["content"] for name, args in policy.made if name == "core_memory_append"]
    assert appended and set(appended) <= set(held)
    assert list(core_of(memory)) == held

"""A turn of the agent over replies that write their calls as text (tests/fake_openai.py)."""

from __future__ import annotations

import json
from typing import Any

from fake_openai import FakeOpenAIServer

from tiermem.agent.loop import Agent, TurnResult
from tiermem.agent.openai_client import OpenAIClient
from tiermem.memory import HashingEmbedder, HierarchicalMemory

ALLERGY = {"content": "Allergic to peanuts"}
ALLERGY_CALL = json.dumps({"name": "core_memory_append", "arguments": ALLERGY})
#: The allergy saved by one call written in each form but Mistral's.
ALLERGY_FORMS = [
    f"```json\n[{ALLERGY_CALL}]\n```",
    f"<tool_call>{ALLERGY_CALL}</tool_call>",
    f"<function=core_memory_append>{json.dumps(ALLERGY)}</function>",
    f"[{ALLERGY_CALL}]",
    ALLERGY_CALL,
    '[core_memory_append(content="Allergic to peanuts")]',
]


def allergy_turn(server: FakeOpenAIServer, *replies: str,
                 core: str = "Allergic to peanuts") -> tuple[TurnResult, list[dict[str, Any]]]:
    """The turn "I'm allergic to peanuts" over ``replies``, which must leave ``core`` as the
    one fact in core memory: what it did, and the recall rows it left."""
    for reply in replies:
        server.enqueue_reply(reply)
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        client = OpenAIClient("fake-model", base_url=server.base_url, max_retries=0)
        result = Agent(memory, client).step("I'm allergic to peanuts")
        assert [f.text for f in memory.core] == [core]
        rows = memory.recall.rows(range(1, len(memory.recall) + 1))
    return result, rows


def noted_turn(server: FakeOpenAIServer, reply: str) -> list[dict[str, Any]]:
    """The turn over one ``reply`` whose calls, written as text, store the allergy and answer
    "Noted.": the recall rows it left, once both calls ran."""
    result, rows = allergy_turn(server, reply)
    assert result.reply == "Noted."
    assert [(r.name, r.ok, r.from_text) for r in result.tool_results] == [
        ("core_memory_append", True, True), ("send_message", True, True)]
    return rows


def explained_turn(server: FakeOpenAIServer, reply: str, question: str) -> None:
    """The turn ``question`` over one ``reply`` that explains how a call is written: shown
    as it is, with no call run and nothing stored."""
    server.enqueue_reply(reply)
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        client = OpenAIClient("fake-model", base_url=server.base_url, max_retries=0)
        result = Agent(memory, client).step(question)
        assert list(memory.core) == []
    assert result.reply == reply and result.tool_results == []

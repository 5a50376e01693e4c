"""A tool call the token limit cut mid-way is kept, and sent back to the model, with a short
JSON note for its arguments, not the partial JSON, which chat templates that parse a call's
arguments cannot read (agent/stored_messages.py)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from fake_openai import FakeOpenAIServer, FakeResponse

from tiermem.agent.loop import Agent
from tiermem.agent.openai_client import OpenAIClient
from tiermem.memory import HashingEmbedder, HierarchicalMemory

PARTIAL = '{"content": "Allergic to pea'
NOTE = {"omitted": f"{len(PARTIAL)} characters, cut off at max_tokens=9"}


def _as_text(server: FakeOpenAIServer) -> None:
    server.enqueue_reply(f"[TOOL_CALLS]core_memory_append[ARGS]{PARTIAL}", finish_reason="length")


def _as_call(server: FakeOpenAIServer) -> None:
    server.enqueue(FakeResponse(finish_reason="length", message={
        "role": "assistant", "content": "", "tool_calls": [{
            "id": "c0", "type": "function",
            "function": {"name": "core_memory_append", "arguments": PARTIAL}}]}))


@pytest.mark.parametrize("cut_reply", [_as_text, _as_call])
def test_a_cut_call_is_stored_and_sent_with_a_note_for_arguments(
        server: FakeOpenAIServer, cut_reply: Callable[[FakeOpenAIServer], None]) -> None:
    cut_reply(server)
    server.enqueue_reply("Noted.")
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        client = OpenAIClient("fake-model", base_url=server.base_url, max_tokens=9,
                              max_retries=0)
        result = Agent(memory, client).step("I'm allergic to peanuts")
        rows = memory.recall.rows(range(1, len(memory.recall) + 1))
        assert list(memory.core) == []
    assert result.reply == "Noted." and not result.tool_results[0].ok
    [stored] = [c for r in rows for c in r["tool_calls"] or []]
    [sent] = [c for m in server.requests[1]["messages"] for c in m.get("tool_calls") or []]
    for call in (stored, sent):
        assert call["function"]["name"] == "core_memory_append"
        assert json.loads(call["function"]["arguments"]) == NOTE


def test_calls_cut_in_every_step_stop_the_turn_told_once(server: FakeOpenAIServer) -> None:
    for _ in range(3):
        _as_text(server)
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        client = OpenAIClient("fake-model", base_url=server.base_url, max_tokens=9,
                              max_retries=0)
        result = Agent(memory, client).step("I'm allergic to peanuts")
    assert len(server.requests) == 3 and result.reply is None
    assert result.notice is not None
    assert result.notice.count("in the middle of a call to core_memory_append") == 1
    assert "unreadable tool arguments 3 times in a row" in result.notice


def test_calls_cut_again_are_not_told_they_repeat_one(server: FakeOpenAIServer) -> None:
    _as_text(server)
    server.enqueue_reply('[TOOL_CALLS]core_memory_append[ARGS]{"content": "Allergic to nut',
                         finish_reason="length")  # other text, as long: the same note
    server.enqueue_reply("Noted.")
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        client = OpenAIClient("fake-model", base_url=server.base_url, max_tokens=9,
                              max_retries=0)
        result = Agent(memory, client).step("I'm allergic to peanuts")
    told = [m["content"] for m in server.requests[2]["messages"] if m["role"] == "tool"]
    assert result.reply == "Noted." and len(told) == 2
    assert all("cut off" in text and "already made" not in text for text in told)

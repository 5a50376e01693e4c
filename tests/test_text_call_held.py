"""An object holding the calls (``{"tool_calls": [...]}``) is calls only as the whole reply;
beside prose it quotes a response (agent/text_call_objects.py)."""

from __future__ import annotations

import json

import pytest
from fake_openai import FakeOpenAIServer
from text_call_turns import explained_turn

from tiermem.agent.loop import Agent
from tiermem.agent.openai_client import OpenAIClient
from tiermem.agent.text_tool_calls import calls_ending_thinking, find_text_tool_calls
from tiermem.memory import HashingEmbedder, HierarchicalMemory

NAMES = ["core_memory_append", "send_message"]
WIRE = json.dumps({"tool_calls": [{"id": "call_1", "type": "function", "function": {
    "name": "core_memory_append", "arguments": json.dumps({"content": "x"})}}]})
CALL = json.dumps({"name": "core_memory_append", "arguments": {"content": "x"}})


@pytest.mark.parametrize("content", [
    f"Here is what the API returns:\n```json\n{WIRE}\n```",
    f"```json\n{WIRE}\n```\nThat is what the API returns.",
    f"{WIRE}\nThat is what the API returns.",
])
def test_calls_held_in_an_object_beside_prose_are_a_quoted_response(content: str) -> None:
    found = find_text_tool_calls(content, NAMES)
    assert found.calls == [] and found.rest == content


@pytest.mark.parametrize("content", [
    WIRE, f"```json\n{WIRE}\n```", f"<tool_call>\n{WIRE}\n</tool_call>",
    f"Saving it.\n```json\n{CALL}\n```",  # a call itself runs after prose, as before
])
def test_calls_held_in_an_object_that_is_the_whole_reply_run(content: str) -> None:
    [call] = find_text_tool_calls(content, NAMES).calls
    assert (call.name, json.loads(call.arguments)) == ("core_memory_append", {"content": "x"})


def test_the_agent_shows_a_quoted_api_response(server: FakeOpenAIServer) -> None:
    explained_turn(server, f"Here is what the API returns:\n```json\n{WIRE}\n```",
                   "What does the API return for a tool call?")


QUOTED = f"Here is what the API returns:\n```json\n{WIRE}\n```"


@pytest.mark.parametrize("content", [
    f"<think>The user asks what the API returns. {QUOTED}",  # left open, the turn ended
    f"<think>The user asks about the format.</think>\n{QUOTED}",
    f"The user asks about the format.\n</think>\n\n{QUOTED}",  # opened in the prompt
])
def test_calls_held_in_an_object_after_thinking_are_a_quoted_response(
        server: FakeOpenAIServer, content: str) -> None:
    server.enqueue_reply(content)
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        client = OpenAIClient("fake-model", base_url=server.base_url, max_retries=0)
        result = Agent(memory, client).step("What does the API return for a tool call?")
        assert list(memory.core) == [] and result.tool_results == []
    if "</think>" in content:
        assert result.reply == QUOTED


def test_calls_held_in_an_object_that_is_the_whole_thinking_block_run() -> None:
    # or after a marker, which says it is calls
    for block in (WIRE, f"```json\n{WIRE}\n```",
                  f"I'll save it.\n[TOOL_CALLS] ```json\n{WIRE}\n```"):
        [call] = calls_ending_thinking(block, NAMES).calls
        assert (call.name, json.loads(call.arguments)) == ("core_memory_append", {"content": "x"})

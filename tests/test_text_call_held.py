"""An object holding the calls (``{"tool_calls": [...]}``) is calls only as the whole reply;
beside prose it quotes a response (agent/text_call_objects.py)."""

from __future__ import annotations

import json

import pytest
from fake_openai import FakeOpenAIServer
from text_call_turns import explained_turn

from tiermem.agent.text_tool_calls import find_text_tool_calls

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

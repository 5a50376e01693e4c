"""Calls written inside an object that holds them, ``{"tool_calls": [...]}``: llama.cpp's
generic tool format, or the OpenAI message a model has seen (agent/text_call_objects.py)."""

from __future__ import annotations

import json

import pytest
from fake_openai import FakeOpenAIServer
from text_call_turns import allergy_turn

from tiermem.agent.text_tool_calls import find_text_tool_calls

NAMES = ["core_memory_append", "send_message"]
FACT = {"content": "Allergic to peanuts"}
# llama.cpp's generic format, with parallel calls: each call flat, with an id
GENERIC = json.dumps({"tool_calls": [
    {"name": "core_memory_append", "arguments": FACT, "id": "call_0001"}]})
# The OpenAI message, its arguments JSON text as the API sends them
WIRE = json.dumps({"role": "assistant", "content": None, "tool_calls": [
    {"id": "call_abc123", "type": "function",
     "function": {"name": "core_memory_append", "arguments": json.dumps(FACT)}}]})


@pytest.mark.parametrize("content", [
    GENERIC,
    WIRE,
    json.dumps({"tool_calls": [{"function": {"name": "core_memory_append",
                                             "arguments": FACT}}]}),
    json.dumps({"tool_call": {"name": "core_memory_append", "arguments": FACT}}),
    f"```json\n{WIRE}\n```",
    f"<tool_call>\n{GENERIC}\n</tool_call>",
    f"[TOOL_CALLS]```json\n{GENERIC}\n```",  # a marker the fence follows is no prose
    f"[TOOL_CALLS]\n```json\n{WIRE}\n```",
])
def test_calls_in_an_object_that_holds_them_run(content: str) -> None:
    found = find_text_tool_calls(content, NAMES)
    assert [(c.name, json.loads(c.arguments)) for c in found.calls] == [
        ("core_memory_append", FACT)]
    assert found.rest == ""


@pytest.mark.parametrize("content", [
    json.dumps({"tool_calls": []}),
    json.dumps({"tool_calls": [{"name": "get_weather", "arguments": {}}]}),  # not offered
    json.dumps({"role": "user", "tool_calls": [{"name": "core_memory_append",
                                                "arguments": FACT}]}),
    json.dumps({"tool_calls": [{"name": "core_memory_append", "arguments": FACT}],
                "usage": {"total_tokens": 9}}),  # some other data
    f"The API answers like this: {GENERIC}",  # after prose: an example
])
def test_other_json_with_tool_calls_stays_the_reply(content: str) -> None:
    found = find_text_tool_calls(content, NAMES)
    assert found.calls == [] and found.rest == content


def test_the_agent_runs_calls_written_as_the_openai_message(server: FakeOpenAIServer) -> None:
    result, rows = allergy_turn(server, WIRE)
    assert [(r.name, r.ok, r.from_text) for r in result.tool_results] == [
        ("core_memory_append", True, True)]
    assert result.reply is None and all('"tool_calls"' not in r["content"] for r in rows)


def test_the_agent_runs_calls_held_in_a_fence_after_a_marker(server: FakeOpenAIServer) -> None:
    result, _ = allergy_turn(server, f"[TOOL_CALLS]```json\n{GENERIC}\n```")
    assert [(r.name, r.ok) for r in result.tool_results] == [("core_memory_append", True)]
    assert result.reply is None


@pytest.mark.parametrize("content", [
    f"Saving. [TOOL_CALLS]```json\n{GENERIC}\n```",
    f"Saving.\n[TOOL_CALLS]\n```json\n{WIRE}\n```",
])
def test_prose_before_the_marker_a_fenced_object_follows_leaves_it_calls(content: str) -> None:
    # the marker says it is calls, as it does before the object unfenced
    found = find_text_tool_calls(content, NAMES)
    assert ([(c.name, json.loads(c.arguments)) for c in found.calls], found.rest) == (
        [("core_memory_append", FACT)], "Saving.")


def test_the_agent_runs_calls_held_in_a_fence_after_prose_and_a_marker(
        server: FakeOpenAIServer) -> None:
    result, rows = allergy_turn(server, f"Saving. [TOOL_CALLS]```json\n{GENERIC}\n```")
    assert [(r.name, r.ok) for r in result.tool_results] == [("core_memory_append", True)]
    assert all('"tool_calls"' not in r["content"] for r in rows)

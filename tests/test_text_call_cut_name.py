"""A reply cut at the token limit right after the whole name of an offered tool that needs
no arguments, after ``[TOOL_CALLS]`` (``Let me check. [TOOL_CALLS]get_time``): a whole call,
as in a reply not cut, alone or after prose (agent/text_tool_calls.py)."""

from __future__ import annotations

import pytest
from fake_openai import FakeOpenAIServer

from tiermem.agent.loop import Agent
from tiermem.agent.openai_client import OpenAIClient
from tiermem.agent.text_tool_calls import find_text_tool_calls
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.tools.declare import tool
from tiermem.tools.dispatch import Toolbox
from tiermem.tools.memory_tools import MEMORY_TOOLS

NAMES = ["get_time", "core_memory_append"]
SCHEMAS = {"get_time": {"type": "object", "properties": {}},
           "core_memory_append": {"type": "object", "required": ["content"],
                                  "properties": {"content": {"type": "string"}}}}


@pytest.mark.parametrize(("content", "rest"), [
    ("[TOOL_CALLS]get_time", ""),
    ("[TOOL_CALLS] get_time", ""),
    ("[TOOL_CALLS]functions.get_time", ""),
    ("Let me check. [TOOL_CALLS]get_time", "Let me check."),
    ("Let me check.\n[TOOL_CALLS]get_time", "Let me check."),
])
@pytest.mark.parametrize("cut", [False, True])
def test_the_name_of_a_tool_that_needs_no_arguments_is_a_whole_call(
        content: str, rest: str, cut: bool) -> None:
    found = find_text_tool_calls(content, NAMES, cut=cut, schemas=SCHEMAS)
    assert [(c.name, c.arguments) for c in found.calls] == [("get_time", "{}")]
    assert found.rest == rest


@pytest.mark.parametrize("fragment", ["[TOOL_CALLS]s", "[T", "[TOOL_CALLS]core_mem"])
def test_a_name_before_a_call_cut_before_its_name_is_whole(fragment: str) -> None:
    found = find_text_tool_calls(f"[TOOL_CALLS]get_time{fragment}", NAMES, cut=True,
                                 schemas=SCHEMAS)
    assert [(c.name, c.arguments) for c in found.calls] == [("get_time", "{}"),
                                                            ("", fragment)]


def test_a_name_another_offered_name_goes_on_from_may_be_cut() -> None:
    names = [*NAMES, "get_time_zone"]
    schemas = {**SCHEMAS, "get_time_zone": {"type": "object", "properties": {}}}
    alone = find_text_tool_calls("[TOOL_CALLS]get_time", names, cut=True, schemas=schemas)
    assert [(c.name, c.arguments) for c in alone.calls] == [("get_time", "")]
    content = "Let me check. [TOOL_CALLS]get_time"
    after_prose = find_text_tool_calls(content, names, cut=True, schemas=schemas)
    assert (after_prose.calls, after_prose.rest) == ([], content)


def test_the_name_of_a_tool_that_needs_arguments_at_the_cut_is_still_cut() -> None:
    [call] = find_text_tool_calls("[TOOL_CALLS]core_memory_append", NAMES, cut=True,
                                  schemas=SCHEMAS).calls
    assert (call.name, call.arguments) == ("core_memory_append", "")
    content = "Let me check. [TOOL_CALLS]core_memory_append"
    found = find_text_tool_calls(content, NAMES, cut=True, schemas=SCHEMAS)
    assert (found.calls, found.rest) == ([], content)


@tool
def get_time() -> str:
    """Tell the time."""
    return "It is noon."


@pytest.mark.parametrize("reply", ["[TOOL_CALLS]get_time", "Let me check. [TOOL_CALLS]get_time"])
def test_the_agent_runs_the_tool_named_where_the_reply_was_cut(
        server: FakeOpenAIServer, reply: str) -> None:
    server.enqueue_reply(reply, finish_reason="length")
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        client = OpenAIClient("fake-model", base_url=server.base_url, max_retries=0)
        agent = Agent(memory, client, toolbox=Toolbox([*MEMORY_TOOLS, get_time]))
        result = agent.step("What time is it?")
    assert [(r.name, r.ok, r.content) for r in result.tool_results] == [
        ("get_time", True, "It is noon.")]
    assert "cut" not in (result.notice or "")

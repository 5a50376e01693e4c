"""A reply that is nothing but Mistral's markup, part of which does not read: each such part
is a call with its text as arguments, answered with what to write, instead of the markup
shown as the reply with nothing run; arguments that are a whole object and then prose run,
the prose the reply (agent/text_call_markup.py)."""

from __future__ import annotations

import pytest
from fake_openai import FakeOpenAIServer

from tiermem.agent.loop import Agent
from tiermem.agent.openai_client import OpenAIClient
from tiermem.agent.text_tool_calls import find_text_tool_calls
from tiermem.memory import HashingEmbedder, HierarchicalMemory

NAMES = ["core_memory_append", "send_message"]
APPEND = "[TOOL_CALLS]core_memory_append[ARGS]"


@pytest.mark.parametrize(("content", "calls", "rest"), [
    ("[TOOL_CALLS]core_memory_append[TOOL_CALLS]s",
     [("core_memory_append", "{}"), ("s", "")], ""),
    (APPEND + '{"content": "Allergic to pea Done.',
     [("core_memory_append", '{"content": "Allergic to pea Done.')], ""),
    ('[TOOL_CALLS]core_memory_append{"content": "Allergic',
     [("core_memory_append", '{"content": "Allergic')], ""),
    (APPEND + '{"content": "Allergic to peanuts"} Done.',
     [("core_memory_append", '{"content": "Allergic to peanuts"}')], "Done."),
    (APPEND + '{"content": "Allergic to peanuts"}[TOOL_CALLS] Done.',
     [("core_memory_append", '{"content": "Allergic to peanuts"}')], "Done."),
    ('[TOOL_CALLS]core_memory_append[CALL_ID]a1b2c3d4e[ARGS]{"content": "Allergic to peanuts"} '
     "Done.", [("core_memory_append", '{"content": "Allergic to peanuts"}')], "Done."),
    ('[TOOL_CALLS]core_memory_append[CALL_ID]a1b2c3d4e[ARGS]{"content": "Allergic to pea',
     [("core_memory_append", '{"content": "Allergic to pea')], ""),
])
def test_markup_written_wrong_is_calls_to_answer(content: str, calls: list[tuple[str, str]],
                                                 rest: str) -> None:
    found = find_text_tool_calls(content, NAMES)
    assert [(c.name, c.arguments) for c in found.calls] == calls
    assert found.rest == rest


@pytest.mark.parametrize("content", [
    "Saving. [TOOL_CALLS]core_memory_append[TOOL_CALLS]s",
    "Mistral writes [TOOL_CALLS]core_memory_append[ARGS]{...} and so on.",
])
def test_markup_with_no_call_in_it_or_after_prose_stays_the_reply(content: str) -> None:
    found = find_text_tool_calls(content, NAMES)
    assert (found.calls, found.rest) == ([], content)


def test_the_model_is_told_what_to_write(server: FakeOpenAIServer) -> None:
    server.enqueue_reply("[TOOL_CALLS]core_memory_append[TOOL_CALLS]s")
    server.enqueue_reply("Noted.")
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        client = OpenAIClient("fake-model", base_url=server.base_url, max_retries=0)
        result = Agent(memory, client).step("I'm allergic to peanuts")
        assert list(memory.core) == []
    assert [(r.name, r.ok, r.error_kind) for r in result.tool_results] == [
        ("core_memory_append", False, "invalid_arguments"), ("s", False, "unknown_tool")]
    told = [m["content"] for m in server.requests[1]["messages"] if m["role"] == "tool"]
    assert "missing required field(s): 'content'" in told[0]
    assert "there is no tool named 's'" in told[1]
    assert result.reply == "Noted."

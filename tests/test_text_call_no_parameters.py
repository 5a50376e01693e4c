"""A tool offered with no ``parameters`` schema takes no arguments: markup that names it
with none, amid prose, calls it, as it calls a tool whose schema requires none
(agent/text_call_objects.py)."""

from __future__ import annotations

import pytest
from fake_openai import FakeOpenAIServer

from tiermem.agent.openai_client import OpenAIClient
from tiermem.agent.text_tool_calls import (
    calls_ending_thinking,
    find_text_tool_calls,
    offered_names,
    offered_parameters,
)

#: "ping" is offered with no parameters schema at all; "save" requires an argument.
TOOLS = [{"type": "function", "function": {"name": "ping", "description": "Check."}},
         {"type": "function", "function": {"name": "save", "parameters": {
             "type": "object", "properties": {"text": {"type": "string"}},
             "required": ["text"]}}}]


@pytest.mark.parametrize("content", [
    "Let me check. <function=ping></function>",
    "Let me check. <tool_call><function=ping></function></tool_call>",
    "Let me check. <tool_call><function>ping</function></tool_call>",
    "Let me check. [TOOL_CALLS]ping[ARGS]",
    "Let me check. [TOOL_CALLS]ping",
])
def test_a_tool_with_no_parameters_named_amid_prose_is_called(content: str) -> None:
    found = find_text_tool_calls(content, offered_names(TOOLS),
                                 schemas=offered_parameters(TOOLS))
    assert [(c.name, c.arguments) for c in found.calls] == [("ping", "{}")]
    assert found.rest == "Let me check."


def test_thinking_may_end_in_a_call_to_a_tool_with_no_parameters() -> None:
    found = calls_ending_thinking("I should check. <function=ping></function>",
                                  offered_names(TOOLS), schemas=offered_parameters(TOOLS))
    assert [(c.name, c.arguments) for c in found.calls] == [("ping", "{}")]


def test_a_tool_that_requires_arguments_named_amid_prose_still_names_the_form() -> None:
    content = "Llama writes <function=save></function>"
    found = find_text_tool_calls(content, offered_names(TOOLS),
                                 schemas=offered_parameters(TOOLS))
    assert (found.calls, found.rest) == ([], content)


def test_the_client_returns_the_call_to_a_tool_with_no_parameters(
        server: FakeOpenAIServer) -> None:
    server.enqueue_reply("Let me check. <tool_call><function=ping></function></tool_call>")
    client = OpenAIClient("fake-model", base_url=server.base_url, max_retries=0)
    completion = client.complete([{"role": "user", "content": "Are you there?"}], TOOLS)
    assert [(c.name, c.arguments) for c in completion.tool_calls] == [("ping", "{}")]
    assert completion.content == "Let me check."

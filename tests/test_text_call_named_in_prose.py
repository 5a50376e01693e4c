"""Markup that names a tool with no arguments, amid prose, names the markup: no call
(agent/text_call_markup.py)."""

from __future__ import annotations

import json

import pytest
from fake_openai import FakeOpenAIServer
from text_call_turns import explained_turn

from tiermem.agent.text_tool_calls import find_text_tool_calls

NAMES = ["core_memory_append", "send_message"]


@pytest.mark.parametrize("content", [
    "To save a fact, Llama writes <function=core_memory_append>",
    "The tag is: <function=core_memory_append>",
    "Write <function=core_memory_append></function> to save.",
    "It calls <function=core_memory_append> then <function=send_message>",
    "Mistral writes [TOOL_CALLS]core_memory_append[ARGS]",
])
def test_a_tool_named_in_prose_is_the_reply(content: str) -> None:
    found = find_text_tool_calls(content, NAMES)
    assert (found.calls, found.rest) == ([], content)


@pytest.mark.parametrize("content", [
    "<function=core_memory_append>", "<function=core_memory_append></function>",
    "[TOOL_CALLS]core_memory_append[ARGS]",
])
def test_a_call_with_no_arguments_alone_is_still_a_call(content: str) -> None:
    [call] = find_text_tool_calls(content, NAMES).calls
    assert (call.name, call.arguments) == ("core_memory_append", "{}")


@pytest.mark.parametrize("content", [
    'Saving that.\n<function=core_memory_append>{"content": "Likes tea"}</function>',
    'Saving that.[TOOL_CALLS]core_memory_append[ARGS]{"content": "Likes tea"}',
])
def test_a_call_with_arguments_after_prose_still_runs(content: str) -> None:
    found = find_text_tool_calls(content, NAMES)
    assert [(c.name, json.loads(c.arguments)) for c in found.calls] == [
        ("core_memory_append", {"content": "Likes tea"})]
    assert found.rest == "Saving that."


def test_the_agent_shows_the_markup_named_in_prose(server: FakeOpenAIServer) -> None:
    explained_turn(server, "To save a fact, Llama writes <function=core_memory_append>",
                   "How does Llama write a call?")

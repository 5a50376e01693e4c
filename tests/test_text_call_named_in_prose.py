"""Markup that names a tool with no arguments, amid prose, names the markup: no call
(agent/text_call_markup.py)."""

from __future__ import annotations

import json

import pytest
from fake_openai import FakeOpenAIServer
from text_call_turns import allergy_turn, explained_turn

from tiermem.agent.text_tool_calls import calls_ending_thinking, find_text_tool_calls

NAMES = ["core_memory_append", "send_message"]
#: A tool that needs no arguments beside one that needs some.
SCHEMAS = {"get_time": {"type": "object", "properties": {}},
           "core_memory_append": {"type": "object", "properties": {"content": {"type": "string"}},
                                  "required": ["content"]}}


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


@pytest.mark.parametrize("content", [
    "Let me check the time. <function=get_time></function>",
    "Let me check the time.\n<function=get_time>",
    "Let me check the time. [TOOL_CALLS]get_time[ARGS]",
])
def test_a_tool_that_needs_no_arguments_is_called_after_prose(content: str) -> None:
    found = find_text_tool_calls(content, SCHEMAS, schemas=SCHEMAS)
    assert [(c.name, c.arguments) for c in found.calls] == [("get_time", "{}")]
    assert found.rest == "Let me check the time."


@pytest.mark.parametrize("content", [
    'Saving. <function=core_memory_append>{"content": "Likes tea"}</function>'
    " <function=core_memory_append></function>",
    'Saving. [TOOL_CALLS]core_memory_append[ARGS]{"content": "Likes tea"}'
    "[TOOL_CALLS]core_memory_append[ARGS]",
])
def test_markup_with_no_arguments_beside_a_call_is_a_call_too(content: str) -> None:
    found = find_text_tool_calls(content, SCHEMAS, schemas=SCHEMAS)
    assert [(c.name, json.loads(c.arguments)) for c in found.calls] == [
        ("core_memory_append", {"content": "Likes tea"}), ("core_memory_append", {})]
    assert found.rest == "Saving."


def test_a_tool_that_needs_arguments_named_in_prose_stays_the_reply() -> None:
    content = "To save a fact, Llama writes <function=core_memory_append>"
    found = find_text_tool_calls(content, SCHEMAS, schemas=SCHEMAS)
    assert (found.calls, found.rest) == ([], content)


@pytest.mark.parametrize("thinking", [
    "The user is allergic. I'd use <function=core_memory_append>",
    "The user is allergic. Mistral would write [TOOL_CALLS]core_memory_append[ARGS]",
])
@pytest.mark.parametrize("schemas", [None, SCHEMAS])
def test_thinking_that_names_the_markup_makes_no_call(thinking: str, schemas: dict) -> None:
    assert calls_ending_thinking(thinking, NAMES, schemas=schemas).calls == []


def test_thinking_may_end_in_a_call_to_a_tool_that_needs_no_arguments() -> None:
    found = calls_ending_thinking("It asks the time. <function=get_time></function>", SCHEMAS,
                                  schemas=SCHEMAS)
    assert [(c.name, c.arguments) for c in found.calls] == [("get_time", "{}")]


@pytest.mark.parametrize("markup", [
    "<function=core_memory_append></function>",
    "<tool_call><function=core_memory_append></function></tool_call>",
    "<tool_call><function>core_memory_append</function></tool_call>",
])
def test_the_hermes_tags_around_markup_named_in_prose_make_no_call(markup: str) -> None:
    content = f"Checking. {markup}"
    found = find_text_tool_calls(content, SCHEMAS, schemas=SCHEMAS)
    assert (found.calls, found.rest) == ([], content)
    assert calls_ending_thinking(f"I'd use {markup}", SCHEMAS, schemas=SCHEMAS).calls == []
    # alone, it is a call, which the tool answers with what it needs
    [call] = find_text_tool_calls(markup, SCHEMAS, schemas=SCHEMAS).calls
    assert (call.name, call.arguments) == ("core_memory_append", "{}")


def test_the_agent_shows_markup_in_the_hermes_tags_named_in_prose(
        server: FakeOpenAIServer) -> None:
    explained_turn(server, "Llama 3.2 writes <tool_call><function=core_memory_append>"
                           "</function></tool_call>", "How does Llama write a call?")


@pytest.mark.parametrize(("content", "rest"), [
    ("[TOOL_CALLS]get_time", ""),
    ("Let me check the time. [TOOL_CALLS]get_time</s>", "Let me check the time."),
])
def test_a_name_alone_after_the_marker_calls_a_tool_that_needs_no_arguments(
        content: str, rest: str) -> None:
    found = find_text_tool_calls(content, SCHEMAS, schemas=SCHEMAS)
    assert ([(c.name, c.arguments) for c in found.calls], found.rest) == (
        [("get_time", "{}")], rest)


def test_a_name_alone_after_the_marker_in_prose_names_the_form() -> None:
    content = "Mistral writes [TOOL_CALLS]core_memory_append"
    assert find_text_tool_calls(content, SCHEMAS, schemas=SCHEMAS).rest == content
    assert find_text_tool_calls("Mistral writes [TOOL_CALLS]get_weather", SCHEMAS).calls == []
    # while a name that is no offered tool, alone, is a call answered as unknown, as one
    # with arguments is
    assert [c.name for c in find_text_tool_calls("[TOOL_CALLS]get_weather", SCHEMAS).calls] \
        == ["get_weather"]


def test_the_agent_answers_a_name_alone_after_the_marker(server: FakeOpenAIServer) -> None:
    corrected = '[TOOL_CALLS]core_memory_append[ARGS]{"content": "Allergic to peanuts"}'
    result, _ = allergy_turn(server, "[TOOL_CALLS]core_memory_append", corrected)
    assert [(r.name, r.ok) for r in result.tool_results] == [
        ("core_memory_append", False), ("core_memory_append", True)]
    assert "content" in result.tool_results[0].content

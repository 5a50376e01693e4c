"""Mistral's marker beginning a reply that makes no call: markers alone are no reply, and
what follows one is shown without it ("[TOOL_CALLS] ok, noted", "[TOOL_CALLS]save(x)"),
unless the sentence goes on from the marker ("[TOOL_CALLS] is how Mistral marks its calls.");
markers or opening tags ending prose ("Hello.\n[TOOL_CALLS]", "Sure.\n<tool_call>") are no
part of the reply;
a Python call to an offered tool after it ("[TOOL_CALLS]core_memory_append(content="x")")
runs with its values (agent/text_call_mistral_prose.py, agent/text_call_markup.py)."""

from __future__ import annotations

import json

import pytest
from fake_openai import FakeOpenAIServer
from text_call_turns import allergy_turn

from tiermem.agent.loop import Agent, TurnResult
from tiermem.agent.openai_client import OpenAIClient
from tiermem.agent.text_tool_calls import find_text_tool_calls
from tiermem.memory import HashingEmbedder, HierarchicalMemory

NAMES = ["core_memory_append", "send_message"]
SCHEMAS = {"core_memory_append": {"type": "object", "required": ["content"],
                                  "properties": {"content": {"type": "string"}}},
           "send_message": {"type": "object", "required": ["message"],
                            "properties": {"message": {"type": "string"}}}}


@pytest.mark.parametrize("content", ["[TOOL_CALLS]", "[TOOL_CALLS] ", " [TOOL_CALLS] \n",
                                     "[TOOL_CALLS][TOOL_CALLS]"])
def test_markers_alone_are_no_reply(content: str) -> None:
    found = find_text_tool_calls(content, NAMES, schemas=SCHEMAS)
    assert (found.calls, found.rest) == ([], "")


@pytest.mark.parametrize("content", ["[TOOL_CALLS]", "[TOOL_CALLS] \n", "[TOOL_CALLS]send_mes",
                                     "[TOOL_CALLS]s", "[TOOL_CALLS] [", '<tool_call>{"na',
                                     "<tool_call>", "<function=core_mem",
                                     '<|tool_call|>[{"name": "'])
def test_an_opening_alone_at_the_cut_is_a_call_cut_before_its_name(content: str) -> None:
    found = find_text_tool_calls(content, NAMES, cut=True, schemas=SCHEMAS)
    assert ([(c.name, c.arguments) for c in found.calls], found.rest) == (
        [("", content.strip())], "")
    # Not cut, the start of a name is what the model wrote: shown, without the marker.
    assert find_text_tool_calls("[TOOL_CALLS]s", NAMES, schemas=SCHEMAS).rest == "s"


@pytest.mark.parametrize("content", [
    "[TOOL_CALLS] ok, noted", "[TOOL_CALLS] sure thing. I will remember.",
    "[TOOL_CALLS]got it[TOOL_CALLS]", "[TOOL_CALLS]save(x)", '[TOOL_CALLS]save(content="x")',
    "[TOOL_CALLS]Forget",
])
@pytest.mark.parametrize("cut", [False, True])
def test_what_follows_a_marker_that_makes_no_call_is_shown_without_it(content: str,
                                                                       cut: bool) -> None:
    found = find_text_tool_calls(content, NAMES, cut=cut, schemas=SCHEMAS)
    assert (found.calls, found.rest) == ([], content.replace("[TOOL_CALLS]", "").strip())


@pytest.mark.parametrize("content", [
    "[TOOL_CALLS] is how Mistral marks its calls.", "[TOOL_CALLS] and then a list.",
    "[TOOL_CALLS] marks a call.", "[TOOL_CALLS]name{...} is how newer Mistral models write one.",
    "Mistral ends with [TOOL_CALLS]", "It writes:\n[TOOL_CALLS]",
    "Qwen writes:\n<tool_call>", "Qwen opens calls with <tool_call>",
])
def test_a_sentence_about_the_marker_keeps_it(content: str) -> None:
    assert find_text_tool_calls(content, NAMES, schemas=SCHEMAS).rest == content


@pytest.mark.parametrize("marker", ["[TOOL_CALLS]", "<tool_call>", "<|tool_call|>",
                                    "<|python_tag|>"])
@pytest.mark.parametrize("content", ["Hello.\n[TOOL_CALLS]", "Hello. [TOOL_CALLS]",
                                     "Hello.\n[TOOL_CALLS]\n[TOOL_CALLS] ", "Hello\n[TOOL_CALLS]"])
def test_markers_ending_prose_are_no_part_of_the_reply(content: str, marker: str) -> None:
    found = find_text_tool_calls(content.replace("[TOOL_CALLS]", marker), NAMES, schemas=SCHEMAS)
    assert (found.calls, found.rest) == ([], content.partition("[TOOL_CALLS]")[0].strip())


@pytest.mark.parametrize("content", [
    '[TOOL_CALLS]core_memory_append(content="x")', '[TOOL_CALLS] core_memory_append("x")',
    '[TOOL_CALLS][core_memory_append(content="x")]',
])
def test_a_python_call_after_the_marker_runs_with_its_values(content: str) -> None:
    found = find_text_tool_calls(content, NAMES, schemas=SCHEMAS)
    assert [(c.name, json.loads(c.arguments)) for c in found.calls] == [
        ("core_memory_append", {"content": "x"})]
    assert found.rest == ""


def tea_turn(server: FakeOpenAIServer, reply: str,
             finish_reason: str = "stop") -> tuple[TurnResult, list[str]]:
    """The turn "I like tea" over one ``reply``: what it did, and the recall rows' text."""
    server.enqueue_reply(reply, finish_reason=finish_reason)
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        client = OpenAIClient("fake-model", base_url=server.base_url, max_retries=0)
        result = Agent(memory, client).step("I like tea")
        rows = memory.recall.rows(range(1, len(memory.recall) + 1))
    return result, [r["content"] or "" for r in rows]


@pytest.mark.parametrize(("reply", "shown"), [("[TOOL_CALLS]", None),
                                               ("Tea is nice.\n[TOOL_CALLS]", "Tea is nice."),
                                               ("[TOOL_CALLS] ok, noted", "ok, noted"),
                                               ("[TOOL_CALLS]save(x)", "save(x)")])
def test_the_agent_shows_no_marker(server: FakeOpenAIServer, reply: str,
                                   shown: str | None) -> None:
    result, said = tea_turn(server, reply)
    assert (result.reply, result.tool_results) == (shown, [])
    assert not any("[TOOL_CALLS]" in text for text in said)


@pytest.mark.parametrize("reply", ["[TOOL_CALLS]", "[TOOL_CALLS]send_mes", '<tool_call>{"na'])
def test_the_agent_says_a_reply_cut_at_a_call_opening_was_cut(server: FakeOpenAIServer,
                                                              reply: str) -> None:
    result, _ = tea_turn(server, reply, "length")
    assert (result.reply, result.tool_results) == (None, [])
    assert result.notice is not None and "in the middle of a tool call" in result.notice


def test_the_agent_runs_a_python_call_after_the_marker(server: FakeOpenAIServer) -> None:
    result, _ = allergy_turn(server, '[TOOL_CALLS]core_memory_append(content="Allergic to '
                                     'peanuts")')
    assert [(r.name, r.ok, r.from_text) for r in result.tool_results] == [
        ("core_memory_append", True, True)]


@pytest.mark.parametrize("content", ["[TOOL_CALLS]get_weather", "[TOOL_CALLS] getWeather",
                                     "[TOOL_CALLS]get_weather[TOOL_CALLS]"])
def test_a_tool_name_nobody_offered_alone_is_a_call_answered_as_unknown(content: str) -> None:
    # As "[TOOL_CALLS]get_weather[ARGS]{}" is: a call the model meant, run to tell it the
    # tool is unknown, not its name shown as the reply.
    name = content.replace("[TOOL_CALLS]", "").strip()
    found = find_text_tool_calls(content, NAMES, schemas=SCHEMAS)
    assert ([(c.name, c.arguments) for c in found.calls], found.rest) == ([(name, "")], "")
    # At the cut, the name may be cut: a call cut before its name was whole.
    cut = find_text_tool_calls("[TOOL_CALLS]get_wea", NAMES, cut=True, schemas=SCHEMAS)
    assert ([(c.name, c.arguments) for c in cut.calls], cut.rest) == (
        [("", "[TOOL_CALLS]get_wea")], "")


def test_the_agent_answers_a_tool_name_alone_as_unknown(server: FakeOpenAIServer) -> None:
    result, _ = allergy_turn(server, "[TOOL_CALLS]get_weather",
                             '[TOOL_CALLS]core_memory_append[ARGS]{"content": '
                             '"Allergic to peanuts"}')
    assert [(r.name, r.ok) for r in result.tool_results] == [
        ("get_weather", False), ("core_memory_append", True)]
    assert "get_weather" in result.tool_results[0].content

"""A reply cut at the token limit after whole calls, inside the tag or marker opening the
next one, before its name: the whole calls run, the fragment is no reply, and the user
learns a call was cut (agent/text_tool_calls.py)."""

from __future__ import annotations

import json

import pytest
from fake_openai import FakeOpenAIServer
from text_call_turns import allergy_turn

from tiermem.agent.llm import is_whole_json
from tiermem.agent.loop import Agent
from tiermem.agent.openai_client import OpenAIClient
from tiermem.agent.text_tool_calls import find_text_tool_calls
from tiermem.memory import HashingEmbedder, HierarchicalMemory

NAMES = ["core_memory_append", "send_message"]
FACT = {"content": "Allergic to peanuts"}
CALL = json.dumps({"name": "core_memory_append", "arguments": FACT})
HERMES = f"<tool_call>\n{CALL}\n</tool_call>\n"
CODER = ("<function=core_memory_append>\n<parameter=content>\nAllergic to peanuts\n"
         "</parameter>\n</function>\n")


@pytest.mark.parametrize(("content", "fragment"), [
    (f"{HERMES}<tool_c", "<tool_c"),
    (f"{HERMES}<tool_call>", "<tool_call>"),
    (f"{HERMES}<tool_call>\n" + '{"na', '<tool_call>\n{"na'),
    (f"{HERMES}<tool_call>\n<function=send_mes", "<tool_call>\n<function=send_mes"),
    (f"{CODER}<function=send_mes", "<function=send_mes"),
    (f"<|tool_call|>[{CALL}]<|/tool_call|><|tool_c", "<|tool_c"),
    (f"[TOOL_CALLS]core_memory_append[ARGS]{json.dumps(FACT)}[TOOL_CALLS]send_mes",
     "[TOOL_CALLS]send_mes"),
    (f"[TOOL_CALLS][{CALL}][TOOL_C", "[TOOL_C"),
])
def test_whole_calls_run_and_the_cut_one_is_no_reply(content: str, fragment: str) -> None:
    found = find_text_tool_calls(content, NAMES, cut=True)
    assert [(c.name, c.arguments) for c in found.calls] == [
        ("core_memory_append", json.dumps(FACT)), ("", fragment)]
    assert found.rest == ""


@pytest.mark.parametrize("content", [
    "Sure, I will note that. <tool_c",  # no call before it: the reply, marked as cut
    f"{HERMES}<tool_call>\n{{'name': 'send_message', 'arguments': {{'message': 'Noted.'}}}}",
])
def test_no_call_is_made_up_from_the_fragment(content: str) -> None:
    found = find_text_tool_calls(content, NAMES, cut=True)
    assert all(c.name for c in found.calls)


def test_the_agent_says_a_call_was_cut(server: FakeOpenAIServer) -> None:
    server.enqueue_reply(f"Saving that.\n{HERMES}<tool_c", finish_reason="length")
    result, _ = allergy_turn(server)
    assert result.reply == "Saving that."
    assert [(r.name, r.ok) for r in result.tool_results] == [("core_memory_append", True)]
    assert result.notice is not None and "in the middle of a tool call" in result.notice


@pytest.mark.parametrize("content", [
    "[TOOL_CALLS]core_memory_append[ARGS]", "<function=core_memory_append>",
    f"{HERMES}<function=core_memory_append>", f"{HERMES}<tool_call>\n<function=send_message>",
])
def test_a_call_cut_before_its_arguments_is_cut_not_called_with_none(
        server: FakeOpenAIServer, content: str) -> None:
    assert not is_whole_json(find_text_tool_calls(content, NAMES, cut=True).calls[-1].arguments)
    server.enqueue_reply(content, finish_reason="length")
    server.enqueue_reply("Noted.")
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        client = OpenAIClient("fake-model", base_url=server.base_url, max_retries=0)
        result = Agent(memory, client).step("I'm allergic to peanuts")
    *whole, cut = result.tool_results
    assert all(r.ok for r in whole) and not cut.ok
    assert "was cut off at the reply's token limit" in cut.content
    assert result.notice is not None
    assert "in the middle of a " in result.notice and "which was not run" in result.notice


@pytest.mark.parametrize("content", [
    "Llama 3.2 writes <function=core_memory_append>, then the arguments as JSON, then the clos",
    "Mistral writes [TOOL_CALLS]core_memory_append[ARGS] and then the argu",
    "Gemma writes <tool_call><function>core_memory_append</function> and then the argu",
])
def test_markup_named_in_prose_the_limit_cut_later_is_the_reply_marked_as_cut(
        server: FakeOpenAIServer, content: str) -> None:
    assert find_text_tool_calls(content, NAMES, cut=True).calls == []
    server.enqueue_reply(content, finish_reason="length")
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        client = OpenAIClient("fake-model", base_url=server.base_url, max_retries=0)
        result = Agent(memory, client).step("How does a model write a tool call?")
    assert result.tool_results == [] and result.reply == f"{content} [cut off at max_tokens=1024]"
    assert result.notice is not None and "middle of" not in result.notice


def test_a_mistral_call_cut_inside_its_arguments_is_not_run_and_the_model_is_told(
        server: FakeOpenAIServer) -> None:
    content = '[TOOL_CALLS]core_memory_append[ARGS]{"content": "Allergic to pea Done.'
    [cut] = find_text_tool_calls(content, NAMES, cut=True).calls
    assert (cut.name, is_whole_json(cut.arguments)) == ("core_memory_append", False)
    server.enqueue_reply(content, finish_reason="length")
    server.enqueue_reply("Noted.")
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        client = OpenAIClient("fake-model", base_url=server.base_url, max_retries=0)
        result = Agent(memory, client).step("I'm allergic to peanuts")
        assert list(memory.core) == []
    [told] = result.tool_results
    assert not told.ok and "was cut off at the reply's token limit" in told.content
    assert server.requests[1]["messages"][-1]["content"] == told.content
    assert result.reply == "Noted."


@pytest.mark.parametrize("fragment", ["[TOOL_CALLS]core_mem", '<tool_call>{"na', "<tool_call>",
                                      "<function=core_memory_app", "<|python_tag|>{"])
@pytest.mark.parametrize("lead", ["Sure.\n", "Entendido: ", "Alles klar! "])
def test_a_call_cut_before_its_name_after_a_sentence_is_no_reply(
        server: FakeOpenAIServer, lead: str, fragment: str) -> None:
    found = find_text_tool_calls(lead + fragment, NAMES, cut=True)
    assert [(c.name, c.arguments) for c in found.calls][-1][1] == fragment
    assert found.rest == lead.strip()
    server.enqueue_reply(lead + fragment, finish_reason="length")
    server.enqueue_reply("Noted.")
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        client = OpenAIClient("fake-model", base_url=server.base_url, max_retries=0)
        result = Agent(memory, client).step("I'm allergic to peanuts")
    assert result.notice is not None and "in the middle of a " in result.notice
    assert fragment not in (result.reply or "")

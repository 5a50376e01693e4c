"""A reply cut at the token limit inside the tag closing a whole call, or just before the
bracket or fence closing whole calls: the calls run and the start of the closer is no reply
(agent/text_tool_calls.py)."""

from __future__ import annotations

import json

import pytest
from fake_openai import FakeOpenAIServer

from tiermem.agent.loop import Agent
from tiermem.agent.openai_client import OpenAIClient
from tiermem.agent.text_tool_calls import find_text_tool_calls
from tiermem.memory import HashingEmbedder, HierarchicalMemory

NAMES = ["core_memory_append", "send_message"]
SCHEMAS = {"core_memory_append": {"type": "object", "properties": {"content": {"type": "string"}},
                                  "required": ["content"]}}
FACT = {"content": "Allergic to peanuts"}
CALL = json.dumps({"name": "core_memory_append", "arguments": FACT})
PARAMETERS = ("<function=core_memory_append>\n<parameter=content>\nAllergic to peanuts\n"
              "</parameter>\n")


@pytest.mark.parametrize("content", [
    f"{CALL}\n</tool_c",  # the opening tag left out
    f"<tool_call>\n{CALL}\n</tool_call",
    f"<tool_call>\n{PARAMETERS}</function>\n</tool",
    f"{PARAMETERS}</function>\n</",
    f"<tool_call>\n{PARAMETERS}</func",
    f"<|tool_call|>[{CALL}]<|/tool_",
])
def test_a_whole_call_cut_in_its_closing_tag_runs(content: str) -> None:
    found = find_text_tool_calls(content, NAMES, cut=True)
    assert [(c.name, json.loads(c.arguments)) for c in found.calls] == [
        ("core_memory_append", FACT)]
    assert found.rest == ""


def test_a_value_cut_in_its_closing_tag_is_still_a_cut_call() -> None:
    [call] = find_text_tool_calls(f"{PARAMETERS[:-len('</parameter>')]}</param", NAMES,
                                  cut=True).calls
    assert call.arguments.endswith("</param")


def test_the_agent_shows_no_fragment_of_the_tag(server: FakeOpenAIServer) -> None:
    server.enqueue_reply(f"{CALL}\n</tool_c", finish_reason="length")
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        client = OpenAIClient("fake-model", base_url=server.base_url, max_retries=0)
        result = Agent(memory, client).step("I'm allergic to peanuts")
        assert [f.text for f in memory.core] == ["Allergic to peanuts"]
    assert result.reply is None
    assert [(r.name, r.ok) for r in result.tool_results] == [("core_memory_append", True)]


@pytest.mark.parametrize("closing", ["`", "``"])
def test_a_fenced_call_cut_in_its_closing_fence_runs(closing: str) -> None:
    found = find_text_tool_calls(f"```json\n{CALL}\n{closing}", NAMES, cut=True)
    assert [(c.name, json.loads(c.arguments)) for c in found.calls] == [
        ("core_memory_append", FACT)]
    assert found.rest == ""


@pytest.mark.parametrize("content", [
    f"<|python_tag|>{CALL}<|eo", f"<tool_call>\n{CALL}\n</tool_call><|im_e", f"{CALL}</",
])
def test_a_call_cut_in_the_end_of_turn_token_after_it_runs(content: str) -> None:
    found = find_text_tool_calls(content, NAMES, cut=True)
    assert [(c.name, json.loads(c.arguments)) for c in found.calls] == [
        ("core_memory_append", FACT)]
    assert found.rest == ""


@pytest.mark.parametrize(("content", "reply"), [
    # the cut fell in the text after the call: that text is marked as cut
    (f"<tool_call>\n{CALL}\n</tool_call>\nI have saved th",
     "I have saved th [cut off at max_tokens=1024]"),
    # text before the call and after it: the cut fell in the text after
    (f"Saving that.\n<tool_call>\n{CALL}\n</tool_call>\nI have saved th",
     "Saving that.\n\nI have saved th [cut off at max_tokens=1024]"),
    # the text came before the call, which the cut fell in the closing tag of: it is whole
    (f"Saving that.\n<tool_call>\n{CALL}\n</tool_c", "Saving that."),
])
def test_text_beside_whole_calls_of_a_cut_reply_is_marked_cut_only_when_it_ends_it(
        server: FakeOpenAIServer, content: str, reply: str) -> None:
    server.enqueue_reply(content, finish_reason="length")
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        client = OpenAIClient("fake-model", base_url=server.base_url, max_retries=0)
        result = Agent(memory, client).step("I'm allergic to peanuts")
        assert [f.text for f in memory.core] == ["Allergic to peanuts"]
    assert [(r.name, r.ok) for r in result.tool_results] == [("core_memory_append", True)]
    assert result.reply == reply
    assert (result.notice is not None and "the reply was cut" in result.notice) == (
        "cut off" in reply)


PYTHON = 'core_memory_append(content="Allergic to peanuts")'
SEND = json.dumps({"name": "send_message", "arguments": {"message": "Noted."}})


@pytest.mark.parametrize(("content", "count"), [
    (f"[TOOL_CALLS][{CALL}", 1),  # Mistral's list, its "]" cut off
    (f"[TOOL_CALLS] [{CALL}, {SEND}\n", 2),
    (f"[{CALL}", 1),
    (f"[{PYTHON}", 1),  # a Python list of calls
    (f'[{PYTHON}, send_message(message="Noted.")', 2),
    (f"<|python_start|>[{PYTHON}", 1),
    (f"```tool_code\n{PYTHON}\n``", 1),  # Gemma's block, cut in its closing fence
    (f"Saving that.\n```tool_code\n{PYTHON}\n`", 1),
])
def test_whole_calls_cut_just_before_their_closer_run(content: str, count: int) -> None:
    found = find_text_tool_calls(content, NAMES, cut=True, schemas=SCHEMAS)
    assert [(c.name, json.loads(c.arguments)) for c in found.calls][:1] == [
        ("core_memory_append", FACT)]
    assert len(found.calls) == count
    assert found.rest in ("", "Saving that.")


@pytest.mark.parametrize("content", [
    f"[TOOL_CALLS][{CALL[:-1]}",  # the call itself cut: still a cut call
    f"[TOOL_CALLS][{CALL},",  # another call may have followed
    '[core_memory_append(content="Allergic',
])
def test_a_list_cut_inside_its_calls_is_still_a_cut_call(content: str) -> None:
    [call] = find_text_tool_calls(content, NAMES, cut=True, schemas=SCHEMAS).calls
    assert call.name == "core_memory_append"
    with pytest.raises(ValueError):
        json.loads(call.arguments)


def test_a_list_missing_its_bracket_in_a_whole_reply_stays_the_reply() -> None:
    content = f"[{PYTHON}"
    assert find_text_tool_calls(content, NAMES, schemas=SCHEMAS).rest == content


@pytest.mark.parametrize("content", [f"[TOOL_CALLS][{CALL}", f"[{PYTHON}",
                                     f"```tool_code\n{PYTHON}\n``"])
def test_the_agent_runs_whole_calls_cut_before_their_closer(server: FakeOpenAIServer,
                                                            content: str) -> None:
    server.enqueue_reply(content, finish_reason="length")
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        client = OpenAIClient("fake-model", base_url=server.base_url, max_retries=0)
        result = Agent(memory, client).step("I'm allergic to peanuts")
        assert [f.text for f in memory.core] == ["Allergic to peanuts"]
    assert result.reply is None and "cut" not in (result.notice or "")
    assert [(r.name, r.ok) for r in result.tool_results] == [("core_memory_append", True)]

"""A call in Hermes tags whose name is in tags of its own, then its arguments:
``<tool_call><function>NAME</function>{...}</tool_call>``, or Llama 3.2's call in them:
``<tool_call><function=NAME>{...}</function></tool_call>`` (agent/text_call_markup.py)."""

from __future__ import annotations

import json

import pytest
from fake_openai import FakeOpenAIServer
from text_call_turns import allergy_turn, noted_turn

from tiermem.agent.text_tool_calls import calls_ending_thinking, find_text_tool_calls

NAMES = ["core_memory_append", "send_message"]
FACT = {"content": "Allergic to peanuts"}
SCHEMAS = {"core_memory_append": {"type": "object", "required": ["content"],
                                  "properties": {"content": {"type": "string"}}}}


def tagged(name: str, arguments: str) -> str:
    return f"<tool_call>\n<function>{name}</function>\n{arguments}\n</tool_call>"


def llama(name: str, arguments: str, closing: str = "</function>") -> str:
    return f"<tool_call>\n<function={name}>{arguments}{closing}\n</tool_call>"


@pytest.mark.parametrize(("content", "rest"), [
    (tagged("core_memory_append", json.dumps(FACT)), ""),
    (f"Saving that.\n{tagged('core_memory_append', json.dumps(FACT))}<|im_end|>",
     "Saving that."),
    # Llama 3.2's call in the Hermes tags: none of the tags is left as the reply
    (llama("core_memory_append", json.dumps(FACT)), ""),
    (llama("core_memory_append", json.dumps(FACT), closing=""), ""),
    (f"Saving that.\n{llama('core_memory_append', json.dumps(FACT))}", "Saving that."),
])
def test_a_name_in_tags_then_its_arguments_is_a_call(content: str, rest: str) -> None:
    found = find_text_tool_calls(content, NAMES)
    assert [(c.name, json.loads(c.arguments)) for c in found.calls] == [
        ("core_memory_append", FACT)]
    assert found.rest == rest


@pytest.mark.parametrize("content", [
    tagged("core_memory_append", "then the arguments as JSON"),  # no arguments object
    f"Write {tagged('get_weather', '{}')} to ask for the weather.",  # not offered, in prose
])
def test_other_text_in_the_tags_stays_the_reply(content: str) -> None:
    found = find_text_tool_calls(content, NAMES)
    assert found.calls == [] and found.rest == content


def test_the_agent_runs_calls_named_in_tags(server: FakeOpenAIServer) -> None:
    rows = noted_turn(server, tagged("core_memory_append", json.dumps(FACT))
                      + tagged("send_message", json.dumps({"message": "Noted."})))
    assert all("<function>" not in r["content"] for r in rows)


def test_the_agent_runs_llama_calls_in_hermes_tags(server: FakeOpenAIServer) -> None:
    rows = noted_turn(server, llama("core_memory_append", json.dumps(FACT))
                      + llama("send_message", json.dumps({"message": "Noted."})))
    assert all("tool_call>" not in r["content"] for r in rows)


@pytest.mark.parametrize("prose", ["", "Saving both.\n"])
def test_llama_calls_sharing_the_hermes_tags_leave_no_tags(prose: str) -> None:
    arguments = json.dumps(FACT)
    content = (f"{prose}<tool_call>\n<function=core_memory_append>{arguments}</function>\n"
               f"<function=core_memory_append>{arguments}</function>\n</tool_call>")
    found = find_text_tool_calls(content, NAMES)
    assert [(c.name, json.loads(c.arguments)) for c in found.calls] == [
        ("core_memory_append", FACT)] * 2
    assert found.rest == prose.strip()


def test_empty_tags_the_model_wrote_in_prose_stay() -> None:
    content = ('Empty tags, <tool_call></tool_call>, call nothing.\n'
               f'<function=core_memory_append>{json.dumps(FACT)}</function>')
    found = find_text_tool_calls(content, NAMES)
    assert found.rest == "Empty tags, <tool_call></tool_call>, call nothing."


def test_llama_calls_with_no_arguments_sharing_the_hermes_tags_are_calls() -> None:
    content = ("<tool_call><function=core_memory_append></function>"
               "<function=core_memory_append></function></tool_call>")
    for found in (find_text_tool_calls(content, NAMES, schemas=SCHEMAS),
                  calls_ending_thinking(content, NAMES, schemas=SCHEMAS)):
        assert [(c.name, c.arguments) for c in found.calls] == [("core_memory_append", "{}")] * 2
        assert found.rest == ""


LLAMA_CALL = f"<function=core_memory_append>{json.dumps(FACT)}</function>"


@pytest.mark.parametrize(("content", "rest"), [
    (f"<tool_call>{LLAMA_CALL} Noted.</tool_call>", "Noted."),
    (f"Saving.\n<tool_call>{LLAMA_CALL}\nNoted.", "Saving.\n\nNoted."),  # left unclosed
])
def test_text_beside_a_llama_call_in_the_hermes_tags_is_left_without_the_tags(
        content: str, rest: str) -> None:
    found = find_text_tool_calls(content, NAMES, schemas=SCHEMAS)
    assert [(c.name, json.loads(c.arguments)) for c in found.calls] == [
        ("core_memory_append", FACT)]
    assert found.rest == rest


def test_the_agent_shows_no_tags_left_by_a_llama_call_in_them(server: FakeOpenAIServer) -> None:
    result, rows = allergy_turn(server, f"<tool_call>{LLAMA_CALL} Noted.</tool_call>")
    assert [(r.name, r.ok) for r in result.tool_results] == [("core_memory_append", True)]
    assert result.reply == "Noted."
    assert all("tool_call>" not in r["content"] for r in rows)

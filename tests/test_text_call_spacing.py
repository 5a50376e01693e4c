"""The text left where a call written as text was taken out reads as the model's sentence:
the spaces on either side of the call are one, and none is left beside a line break
(agent/text_call_objects.py, ``spliced``)."""

from __future__ import annotations

import json

import pytest
from fake_openai import FakeOpenAIServer
from text_call_turns import allergy_turn

from tiermem.agent.text_tool_calls import find_text_tool_calls

NAMES = ["core_memory_append", "get_time"]
SCHEMAS = {"core_memory_append": {"type": "object", "required": ["content"],
                                  "properties": {"content": {"type": "string"}}},
           "get_time": {"type": "object", "properties": {}}}
CALL = json.dumps({"name": "get_time", "arguments": {}})


@pytest.mark.parametrize("call", [
    "<tool_call><function=get_time></function></tool_call>",
    "<function=get_time></function>",
    f"<tool_call>{CALL}</tool_call>",
    f"```json\n{CALL}\n```",
    "```tool_code\nget_time()\n```",
    f"<|tool_call|>[{CALL}]<|/tool_call|>",
])
@pytest.mark.parametrize(("before", "after", "rest"), [
    ("Llama writes ", " Done.", "Llama writes Done."),
    ("Checking. ", "\nDone.", "Checking.\nDone."),
    ("Checking.\n", " Done.", "Checking.\nDone."),
    ("Checking.\n", "\nDone.", "Checking.\n\nDone."),
    ("  ", "  Done.", "Done."),
    ("Checking.", "Done.", "Checking.Done."),
])
def test_the_spaces_around_a_call_taken_out_are_one(call: str, before: str, after: str,
                                                     rest: str) -> None:
    found = find_text_tool_calls(before + call + after, NAMES, schemas=SCHEMAS)
    assert [(c.name, c.arguments) for c in found.calls] == [("get_time", "{}")]
    assert found.rest == rest


def test_text_in_the_tags_after_a_llama_call_keeps_one_space() -> None:
    content = "Llama writes <tool_call><function=get_time></function> Done.</tool_call>"
    found = find_text_tool_calls(content, NAMES, schemas=SCHEMAS)
    assert [c.name for c in found.calls] == ["get_time"]
    assert found.rest == "Llama writes Done."


def test_spaces_the_model_wrote_away_from_the_calls_stay() -> None:
    content = f"One  two. <tool_call>{CALL}</tool_call> Three   four."
    found = find_text_tool_calls(content, NAMES, schemas=SCHEMAS)
    assert found.rest == "One  two. Three   four."


def test_the_user_reads_one_space_where_the_call_was(server: FakeOpenAIServer) -> None:
    fact = {"name": "core_memory_append", "arguments": {"content": "Allergic to peanuts"}}
    result, _ = allergy_turn(server, f"Saving that. <tool_call>{json.dumps(fact)}</tool_call>"
                                     " I will keep it in mind.")
    assert result.reply == "Saving that. I will keep it in mind."

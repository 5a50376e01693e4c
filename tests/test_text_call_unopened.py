"""A Hermes call whose opening <tool_call> the model left out: a call object the reply
begins with, then the markup's closing tag or another call's opening one
(agent/text_call_markup.py)."""

from __future__ import annotations

import json

import pytest
from fake_openai import FakeOpenAIServer
from text_call_turns import noted_turn

from tiermem.agent.text_tool_calls import find_text_tool_calls

NAMES = ["core_memory_append", "send_message"]
FACT = {"content": "Allergic to peanuts"}
APPEND_JSON = json.dumps({"name": "core_memory_append", "arguments": FACT})
SEND = {"message": "Noted."}
SEND_JSON = json.dumps({"name": "send_message", "arguments": SEND})
BOTH = [("core_memory_append", FACT), ("send_message", SEND)]


def found(content: str) -> tuple[list[tuple[str, object]], str]:
    result = find_text_tool_calls(content, NAMES)
    return [(c.name, json.loads(c.arguments)) for c in result.calls], result.rest


@pytest.mark.parametrize(("content", "calls"), [
    # qwen2.5:7b under Ollama, chaining calls: only the closing tag written
    (f"{APPEND_JSON}\n</tool_call>", BOTH[:1]),
    (f"{APPEND_JSON}\n</tool_call><|im_end|>", BOTH[:1]),
    (f"{APPEND_JSON}\n</tool_call>\n<tool_call>\n{SEND_JSON}\n</tool_call>", BOTH),
    # the first call written bare, the next one in its tags
    (f"{APPEND_JSON}\n<tool_call>\n{SEND_JSON}\n</tool_call>", BOTH),
])
def test_the_call_before_the_markup_is_a_call_in_it(content: str,
                                                    calls: list[tuple[str, object]]) -> None:
    assert found(content) == (calls, "")


@pytest.mark.parametrize("content", [
    json.dumps({"name": "get_weather", "arguments": {}}) + "\n</tool_call>",  # not offered
    f"A call looks like this: {APPEND_JSON}\n</tool_call>",  # after prose: an example
    f"{APPEND_JSON} is how a call looks; end it with </tool_call>.",
])
def test_json_that_is_no_call_the_reply_begins_with_stays_the_reply(content: str) -> None:
    assert found(content) == ([], content)


def test_text_between_the_bare_call_and_the_markup_stays_the_reply() -> None:
    content = f"{APPEND_JSON}\nSaving it.\n<tool_call>\n{SEND_JSON}\n</tool_call>"
    assert found(content) == (BOTH[1:], f"{APPEND_JSON}\nSaving it.")


def test_the_agent_runs_both_and_shows_no_markup(server: FakeOpenAIServer) -> None:
    rows = noted_turn(server, f"{APPEND_JSON}\n<tool_call>\n{SEND_JSON}\n</tool_call>")
    assert all("tool_call" not in r["content"] for r in rows)


APPEND_TAGS = ("<function=core_memory_append>\n<parameter=content>\nAllergic to peanuts\n"
               "</parameter>\n</function>\n</tool_call>")
SEND_TAGS = ("<tool_call>\n<function=send_message>\n<parameter=message>\nNoted.\n</parameter>\n"
             "</function>\n</tool_call>")


@pytest.mark.parametrize("before", ["", "Saving it.\n\n"])
def test_a_qwen3_coder_call_left_unopened_before_one_in_its_tags_runs(before: str) -> None:
    assert found(f"{before}{APPEND_TAGS}\n{SEND_TAGS}") == (BOTH, before.strip())


def test_the_agent_runs_an_unopened_qwen3_coder_call_and_the_next(
        server: FakeOpenAIServer) -> None:
    rows = noted_turn(server, f"{APPEND_TAGS}\n{SEND_TAGS}")
    assert all("parameter" not in r["content"] for r in rows)

"""Calls of another form before Mistral's markup run with its calls: when prose parts them
(a fenced call, then "By the way, [TOOL_CALLS]..."), the prose is the reply, and when the
markup follows the calls in a fence of its own, the fence left empty is no reply; markup
after a call and a sentence that quotes it ("Mistral writes ...") stays an example
(agent/text_tool_calls.py)."""

from __future__ import annotations

import json

import pytest

from tiermem.agent.text_tool_calls import find_text_tool_calls

NAMES = ["core_memory_append", "send_message"]
CALL = {"name": "core_memory_append", "arguments": {"content": "x"}}
MISTRAL = '[TOOL_CALLS]send_message[ARGS]{"message": "hi"}'
BOTH = [("core_memory_append", {"content": "x"}), ("send_message", {"message": "hi"})]


def said(content: str) -> tuple[list[tuple[str, object]], str]:
    found = find_text_tool_calls(content, NAMES)
    return [(c.name, json.loads(c.arguments)) for c in found.calls], found.rest


@pytest.mark.parametrize("calls", [json.dumps([CALL]), json.dumps(CALL)])
def test_fenced_calls_then_prose_then_markup_all_run(calls: str) -> None:
    assert said(f"```json\n{calls}\n```\nBy the way, {MISTRAL}") == (BOTH, "By the way,")


def test_markup_quoted_after_a_call_and_prose_stays_an_example() -> None:
    content = f"<tool_call>{json.dumps(CALL)}</tool_call> Mistral writes {MISTRAL}"
    assert said(content) == (BOTH[:1], f"Mistral writes {MISTRAL}")


@pytest.mark.parametrize("label", ["", "json"])
def test_a_fence_left_empty_by_the_markup_after_calls_is_no_reply(label: str) -> None:
    content = f"<tool_call>{json.dumps(CALL)}</tool_call>\n```{label}\n{MISTRAL}\n```"
    assert said(content) == (BOTH, "")

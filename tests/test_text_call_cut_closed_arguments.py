"""In a reply cut at the token limit, markup whose arguments are a whole object with text
after it (``[ARGS]{}` like so.``) is no call cut mid-way: the cut left nothing open there,
so the markup is quoted or followed by prose, as in a reply not cut
(agent/text_call_objects.py)."""

from __future__ import annotations

import json

import pytest

from tiermem.agent.text_tool_calls import find_text_tool_calls

NAMES = ["core_memory_append", "send_message"]
CALL = json.dumps({"name": "core_memory_append", "arguments": {"content": "x"}})
FENCED = f"```json\n{CALL}\n```"
QUOTED = '`[TOOL_CALLS]send_message[ARGS]{"message": "hi"}`'


@pytest.mark.parametrize("content", [
    f"Mistral writes {QUOTED} like so. {FENCED}",
    f"{FENCED}\nMistral writes {QUOTED}.",
    f"<tool_call>{CALL}</tool_call>\n```\n" + QUOTED.strip("`") + "\n```",
])
def test_a_cut_reply_reads_as_one_not_cut(content: str) -> None:
    whole, cut = (find_text_tool_calls(content, NAMES, cut=at) for at in (False, True))
    assert [(c.name, c.arguments) for c in cut.calls] \
        == [(c.name, c.arguments) for c in whole.calls]
    assert cut.calls[0] == whole.calls[0] and cut.rest == whole.rest


def test_arguments_left_open_by_the_cut_are_a_cut_call() -> None:
    found = find_text_tool_calls('[TOOL_CALLS]send_message[ARGS]{"message": "a [TOOL_CALLS] b',
                                 NAMES, cut=True)
    assert [(c.name, c.arguments) for c in found.calls] == [
        ("send_message", '{"message": "a [TOOL_CALLS] b')]

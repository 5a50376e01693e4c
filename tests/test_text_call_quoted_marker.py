"""Mistral's marker inside a call's own JSON text (``"message": "Saved [TOOL_CALLS] Done."``)
is text, as the JSON runs on past it: it begins no call and ends none
(agent/text_call_tags.py)."""

from __future__ import annotations

import json

import pytest
from fake_openai import FakeOpenAIServer
from text_call_turns import allergy_turn

from tiermem.agent.text_tool_calls import find_text_tool_calls

NAMES = ["core_memory_append", "send_message"]
SAVE = '[TOOL_CALLS]core_memory_append[ARGS]{"content": "Allergic to peanuts"}'


@pytest.mark.parametrize("cut", [False, True])
@pytest.mark.parametrize(("content", "message"), [
    ('[TOOL_CALLS]send_message[ARGS]{"message": "I saved it [TOOL_CALLS] Done."}',
     "I saved it [TOOL_CALLS] Done."),
    ('[TOOL_CALLS]send_message[ARGS]{"message": "Saved (ok)[TOOL_CALLS] Done. Bye"}',
     "Saved (ok)[TOOL_CALLS] Done. Bye"),
    ('[TOOL_CALLS][{"name": "send_message", "arguments": {"message": "Use [TOOL_CALLS] x"}}]',
     "Use [TOOL_CALLS] x"),
])
def test_a_marker_in_a_string_is_text(content: str, message: str, cut: bool) -> None:
    found = find_text_tool_calls(content, NAMES, cut=cut)
    assert [(c.name, json.loads(c.arguments)) for c in found.calls] == [
        ("send_message", {"message": message})]
    assert found.rest == ""


def test_calls_around_a_quoted_marker_are_read_and_a_sentence_after_them_kept() -> None:
    content = (SAVE + '[TOOL_CALLS]send_message[ARGS]{"message": "see [TOOL_CALLS]"}'
               "\n[TOOL_CALLS] Done.")
    found = find_text_tool_calls(content, NAMES)
    assert [c.name for c in found.calls] == ["core_memory_append", "send_message"]
    assert json.loads(found.calls[1].arguments) == {"message": "see [TOOL_CALLS]"}
    assert found.rest == "Done."


def test_the_turn_sends_the_message_whole(server: FakeOpenAIServer) -> None:
    result, _ = allergy_turn(
        server, SAVE + '[TOOL_CALLS]send_message[ARGS]{"message": "Saved [TOOL_CALLS] ok."}')
    assert [(r.name, r.ok) for r in result.tool_results] == [
        ("core_memory_append", True), ("send_message", True)]
    assert result.reply == "Saved [TOOL_CALLS] ok." and len(server.requests) == 1

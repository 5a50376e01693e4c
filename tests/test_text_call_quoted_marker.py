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


@pytest.mark.parametrize("cut_text", [
    '[TOOL_CALLS]send_message[ARGS]{"message": "a [TOOL_CALLS] b',
    '[TOOL_CALLS]send_message[ARGS]{"message": "a [TOOL_CALLS]',
    '[TOOL_CALLS]send_message[ARGS]{"message": "a [TOOL_CALLS]b[ARGS]{',
    '[TOOL_CALLS]send_message[ARGS]{"message": "a [TOOL_CA',
    '[TOOL_CALLS]send_message[ARGS]{"message": ["a [TOOL_CALLS] b \\',
])
def test_a_marker_in_a_string_the_limit_cut_is_text_of_one_cut_call(cut_text: str) -> None:
    found = find_text_tool_calls(SAVE + cut_text, NAMES, cut=True)
    assert [(c.name, c.arguments) for c in found.calls] == [
        ("core_memory_append", '{"content": "Allergic to peanuts"}'),
        ("send_message", cut_text.split("[ARGS]", 1)[1])]
    assert found.rest == ""


def test_a_marker_after_an_unfinished_call_that_reads_no_further_begins_a_call() -> None:
    found = find_text_tool_calls(
        '[TOOL_CALLS]send_message[ARGS]{"message": "hi}' + SAVE, NAMES)
    assert [c.name for c in found.calls] == ["send_message", "core_memory_append"]


def test_the_turn_tells_the_model_its_one_message_was_cut(server: FakeOpenAIServer) -> None:
    server.enqueue_reply(SAVE + '[TOOL_CALLS]send_message[ARGS]{"message": "a [TOOL_CALLS] b',
                         finish_reason="length")
    result, _ = allergy_turn(server, "Noted.")
    assert [(r.name, r.ok) for r in result.tool_results] == [
        ("core_memory_append", True), ("send_message", False)]
    assert "cut off" in (result.tool_results[1].content or "")
    assert result.notice is not None and "in the middle of a call to send_message" \
        in result.notice
    assert result.reply == "Noted."

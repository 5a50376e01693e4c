"""A call in Hermes tags that names an offered tool but does not read goes back to the model
as an error, never to the user as the reply (agent/text_call_markup.py)."""

from __future__ import annotations

import json

import pytest
from fake_openai import FakeOpenAIServer
from text_call_turns import allergy_turn, explained_turn

from tiermem.agent.text_tool_calls import find_text_tool_calls

NAMES = ["core_memory_append", "send_message"]
FACT = {"content": "Allergic to peanuts"}
APPEND_JSON = json.dumps({"name": "core_memory_append", "arguments": FACT})
NO_BRACE = APPEND_JSON[:-1]  # the model left out the call's last brace
PLACEHOLDER = '<tool_call>{"name": "core_memory_append", "arguments": {...}}'
SEND_JSON = json.dumps({"name": "send_message", "arguments": {"message": "Noted."}})


@pytest.mark.parametrize(("content", "rest"), [
    (f"<tool_call>\n{NO_BRACE}\n</tool_call>", ""),
    (f"I'll save that.\n<tool_call>\n{NO_BRACE}\n</tool_call>", "I'll save that."),
    ('<tool_call>{"name": "core_memory_append", "arguments": {"content": "x}}</tool_call>', ""),
    # The stop token came before the closing tag, in a reply that was not cut
    (f"<tool_call>\n{NO_BRACE}\n", ""),
    (f"<tool_call>\n{NO_BRACE}<|im_end|>", ""),
    (f"I'll save that.\n<tool_call>\n{NO_BRACE}", "I'll save that."),
])
def test_an_unreadable_call_is_a_call_whose_arguments_do_not_parse(content: str,
                                                                   rest: str) -> None:
    found = find_text_tool_calls(content, NAMES)
    [call] = found.calls
    assert call.name == "core_memory_append" and found.rest == rest
    with pytest.raises(ValueError):
        json.loads(call.arguments)


def test_an_unreadable_call_before_another_keeps_both_apart() -> None:
    found = find_text_tool_calls(
        f"<tool_call>\n{NO_BRACE}\n</tool_call>\n<tool_call>\n{SEND_JSON}\n</tool_call>", NAMES)
    assert [c.name for c in found.calls] == ["core_memory_append", "send_message"]
    assert found.calls[1].arguments == json.dumps({"message": "Noted."})


@pytest.mark.parametrize("content", [
    '<tool_call>{"name": "memory_store", "arguments": {"content": "x"}</tool_call>',  # unknown
    "<tool_call>I will save that you are allergic.</tool_call>",  # no call object
    f"Write <tool_call>{NO_BRACE}</tool_call> to save a fact.",  # an example amid prose
    '<tool_call>{"name": "core_memory_append", "note": 1}</tool_call>',  # JSON, but no call
    # The form shown with a placeholder for a value, closed or not, even at the end
    f"Wrap calls in the tags, like this:\n{PLACEHOLDER}",
    f"To save a fact, write <tool_call>{PLACEHOLDER[11:]}</tool_call>",
    'Like this: <tool_call>{"name": "core_memory_append", "arguments": {"content": \u2026}}',
    # A tag left unclosed inside a code block the reply shows
    f"Like this:\n```\n<tool_call>\n{NO_BRACE}\n```",
])
def test_tags_that_hold_no_call_meant_for_an_offered_tool_stay_the_reply(content: str) -> None:
    found = find_text_tool_calls(content, NAMES)
    assert found.calls == [] and found.rest == content


def test_an_unclosed_one_cut_at_max_tokens_is_a_cut_call() -> None:
    [call] = find_text_tool_calls(f"<tool_call>\n{NO_BRACE}", NAMES, cut=True).calls
    assert call.arguments == NO_BRACE


@pytest.mark.parametrize("broken", [f"<tool_call>\n{NO_BRACE}\n</tool_call>",
                                    f"<tool_call>\n{NO_BRACE}\n"])
def test_the_model_is_told_and_writes_the_call_again(server: FakeOpenAIServer,
                                                     broken: str) -> None:
    result, rows = allergy_turn(server, broken, f"<tool_call>\n{APPEND_JSON}\n</tool_call>")
    broken, stored = result.tool_results
    assert not broken.ok and broken.error_kind == "invalid_json" and broken.from_text
    assert "not valid JSON" in broken.content
    assert stored.ok
    [told] = [m for m in server.requests[1]["messages"] if m["role"] == "tool"]
    assert told["content"] == broken.content
    assert result.reply is None and "<tool_call>" not in str(result.notice)
    assert all("<tool_call>" not in r["content"] for r in rows)


def test_the_agent_shows_a_reply_that_explains_the_form(server: FakeOpenAIServer) -> None:
    explained = f'Wrap calls in the tags, like this:\n{PLACEHOLDER[:-2]}{{"content": ...}}}}'
    explained_turn(server, explained, "How do you write a tool call?")

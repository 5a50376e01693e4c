"""Calls written as a Python list ``[name(key=value)]`` (Llama 3.2 1B/3B, Llama 4)."""

from __future__ import annotations

import json

import pytest

from tiermem.agent.text_tool_calls import find_text_tool_calls

NAMES = ["core_memory_append", "send_message", "archival_memory_search"]


def calls(content: str, *, cut: bool = False) -> list[tuple[str, object]]:
    found = find_text_tool_calls(content, NAMES, cut=cut)
    return [(c.name, json.loads(c.arguments)) for c in found.calls]


@pytest.mark.parametrize(("content", "expected"), [
    ('[core_memory_append(content="Allergic to peanuts")]',
     [("core_memory_append", {"content": "Allergic to peanuts"})]),
    ('[core_memory_append(content="Likes tea"), send_message(message="Noted.")]',
     [("core_memory_append", {"content": "Likes tea"}), ("send_message", {"message": "Noted."})]),
    # JSON spellings of the literals, nesting, negatives, and the end token a server left in
    ('  [archival_memory_search(query="tea", page=-1, tags=["a", "b"], strict=true, '
     'extra={"k": null}, flag=False)]<|eot_id|>\n',
     [("archival_memory_search", {"query": "tea", "page": -1, "tags": ["a", "b"],
                                  "strict": True, "extra": {"k": None}, "flag": False})]),
    ('[send_message(message="ünïcode ✓", count=1.5)]',
     [("send_message", {"message": "ünïcode ✓", "count": 1.5})]),
    # Llama 4's markers around the list, and a backslash Python would warn about
    ('<|python_start|>[send_message(message="C:\\d")]<|python_end|>',
     [("send_message", {"message": "C:\\d"})]),
])
def test_a_python_list_of_calls_to_offered_tools_is_read(content: str,
                                                         expected: list[object]) -> None:
    assert calls(content) == expected
    assert find_text_tool_calls(content, NAMES).rest == ""


@pytest.mark.parametrize("content", [
    'Write [core_memory_append(content="x")] to save a fact.',  # the syntax, explained
    '[core_memory_append(content="x")] and then I answer.',
    '[os.system(command="rm -rf /")]',  # not an offered tool
    '[core_memory_append(content="x"), os.system(command="ls")]',  # half calls
    '[core_memory_append("positional")]',  # no parameter names to match
    '[core_memory_append(content=open("/etc/passwd").read())]',  # an expression, never run
    '[core_memory_append(content=f"{secret}")]',
    '[core_memory_append(**{"content": "x"})]',
    '[core_memory_append(content=1e999)]',  # no JSON for infinity
    "[send_message(message=...)]",  # copied from an example
    '[core_memory_append(content={1: "x"})]',  # keys must be text
    "[1, 2, 3]",
    "[]",
    "[core_memory_append]",
])
def test_other_text_stays_the_reply(content: str) -> None:
    found = find_text_tool_calls(content, NAMES)
    assert found.calls == [] and found.rest == content


def test_a_list_cut_off_at_max_tokens_is_one_cut_call() -> None:
    content = '[core_memory_append(content="Allergic to pea'
    assert find_text_tool_calls(content, NAMES).calls == []
    [call] = find_text_tool_calls(content, NAMES, cut=True).calls
    assert call.name == "core_memory_append" and call.arguments == content


def test_deep_nesting_is_refused_not_raised() -> None:
    content = "[core_memory_append(content=" + "[" * 5000 + "]" * 5000 + ")]"
    assert find_text_tool_calls(content, NAMES).calls == []

"""A fenced call (```json, ```tool_calls or unlabelled) that the sentence leading into it,
or the first one after it, presents as an example is shown, not run; one a model leads
into with what it does, or that is the whole reply, runs (agent/text_call_fences.py)."""

from __future__ import annotations

import json

import pytest

from tiermem.agent.text_tool_calls import calls_ending_thinking, find_text_tool_calls

NAMES = ["core_memory_append", "send_message"]
CALL = json.dumps({"name": "core_memory_append", "arguments": {"content": "x"}})


def fenced(label: str) -> str:
    return f"```{label}\n{CALL}\n```"


@pytest.mark.parametrize("label", ["json", "tool_calls", ""])
@pytest.mark.parametrize(("before", "after"), [
    ("For example:\n", ""),
    ("Here is an example of a call:\n", "\nThat is how you would save it."),
    ("A call to save it, e.g.\n", ""),
    ("Saving works so.\n", "\nThis is just an example."),
])
def test_a_call_shown_as_an_example_is_the_reply(label: str, before: str, after: str) -> None:
    content = before + fenced(label) + after
    found = find_text_tool_calls(content, NAMES)
    assert (found.calls, found.rest) == ([], content)


@pytest.mark.parametrize("before", ["", "Saving it.\n", "Tea is one example of what you like. "
                                    "I'll save it.\n", "[TOOL_CALLS]"])
def test_a_call_led_into_with_what_it_does_runs(before: str) -> None:
    found = find_text_tool_calls(before + fenced("json") + "\nSaved. For example, ask me later.",
                                 NAMES)
    assert [(c.name, json.loads(c.arguments)) for c in found.calls] == [
        ("core_memory_append", {"content": "x"})]


def test_a_call_thought_of_as_an_example_is_no_call() -> None:
    thinking = "The user likes tea. For example:\n" + fenced("json")
    assert calls_ending_thinking(thinking, NAMES).calls == []
    assert [c.name for c in calls_ending_thinking("I'll save it.\n" + fenced("json"),
                                                  NAMES).calls] == ["core_memory_append"]


@pytest.mark.parametrize("before", [
    "This is an example of a good habit, so I'll note it:\n",
    "Let me save that. For example, your name:\n",
    "Saving it (for example, in case you ask later):\n",
    "Got it \u2014 I'll note that you like examples:\n",
    "I'll update my memory with an example of your style:\n",
    "Your example sentence is saved below:\n",
    "I'll save your blood sample date:\n",
    "Okay! Updating memory (example: name):\n",
])
@pytest.mark.parametrize("after", ["", "\nI've saved your example.",
                                   "\nThat's an example of a good habit, and I'm saving it.",
                                   "\nIt's a good example, so I've noted it.",
                                   "\nLet me know if you want more examples.",
                                   "\nI saved the blood sample date."])
def test_a_call_beside_words_about_some_other_example_runs(before: str, after: str) -> None:
    found = find_text_tool_calls(before + fenced("json") + after, NAMES)
    assert [c.name for c in found.calls] == ["core_memory_append"]
    assert "```" not in found.rest
    thought = calls_ending_thinking(before + fenced("json"), NAMES)
    assert [c.name for c in thought.calls] == ["core_memory_append"]


@pytest.mark.parametrize(("before", "after"), [
    ("For instance, to remember your name I'd call:\n", ""),
    ("To save something, I would write:\n", ""),
    ("Here is a sample:\n", ""),
    ("Here's an example of saving your name:\n", ""),
    ("", "\nThe example above shows the format."),
    ("", "\n(example)"),
])
def test_a_call_presented_as_what_one_would_write_is_the_reply(before: str, after: str) -> None:
    content = before + fenced("json") + after
    found = find_text_tool_calls(content, NAMES)
    assert (found.calls, found.rest) == ([], content)


@pytest.mark.parametrize("before", [
    "Let me save that. For example:\n",
    "I'll save it. Example:\n",
    "Got it, Ana. I'm noting your name. e.g.\n",
])
def test_a_call_the_model_says_it_stores_just_before_an_example_word_runs(before: str) -> None:
    # The model said it stores the fact; the word after cannot make the call it meant a sample.
    found = find_text_tool_calls(before + fenced("json"), NAMES)
    assert [c.name for c in found.calls] == ["core_memory_append"]
    assert [c.name for c in calls_ending_thinking(before + fenced("json"), NAMES).calls] == [
        "core_memory_append"]


@pytest.mark.parametrize("before", [
    "Let me save that.\n\nFor example:\n",  # another paragraph presents the form
    "Saved! You can call tools in JSON. For example:\n",
    "I can save facts for you. For example:\n",
])
def test_an_example_word_after_another_paragraph_or_no_store_still_shows_the_form(
        before: str) -> None:
    content = before + fenced("json")
    found = find_text_tool_calls(content, NAMES)
    assert (found.calls, found.rest) == ([], content)


@pytest.mark.parametrize("body", [f"<tool_call>\n{CALL}\n</tool_call>",
                                  f"```xml\n<tool_call>\n{CALL}\n</tool_call>\n```"])
def test_call_tags_after_an_example_word_run_as_the_tokens_of_a_call(body: str) -> None:
    # Only a fence of JSON is read as prose showing code; the tags are written to call.
    found = find_text_tool_calls("For example:\n" + body, NAMES)
    assert ([c.name for c in found.calls], found.rest) == (["core_memory_append"], "For example:")

"""A fenced call written on one line, its label followed by a space or by the JSON itself
(```json [...]```), runs as one written over lines does; one presented as an example is
still shown, not run (agent/text_call_objects.py, agent/text_call_fences.py)."""

from __future__ import annotations

import json

import pytest
from fake_openai import FakeOpenAIServer
from text_call_turns import allergy_turn

from tiermem.agent.text_tool_calls import find_text_tool_calls

NAMES = ["core_memory_append", "send_message"]
CALL = json.dumps({"name": "core_memory_append", "arguments": {"content": "x"}})


@pytest.mark.parametrize("content", [
    f"```json [{CALL}]```", f"```json{CALL}```", f"```{CALL}```", f"```JSON [{CALL}] ```",
    f"```tool_calls\t[{CALL}]```", f"```json {CALL}\n```", f"I'll note it: ```json {CALL}```",
])
@pytest.mark.parametrize("cut", [False, True])
def test_a_one_line_fenced_call_runs(content: str, cut: bool) -> None:
    found = find_text_tool_calls(content, NAMES, cut=cut)
    assert [(c.name, json.loads(c.arguments)) for c in found.calls] == [
        ("core_memory_append", {"content": "x"})]
    assert found.rest == content.split("```")[0].strip()


@pytest.mark.parametrize("content", [
    f"For example: ```json {CALL}```", f"```json {CALL}``` That is just an example.",
    f"```python {CALL}```", f"```jsonc {CALL}```",
])
def test_a_one_line_fence_shown_as_an_example_or_of_another_label_is_the_reply(
        content: str) -> None:
    found = find_text_tool_calls(content, NAMES)
    assert (found.calls, found.rest) == ([], content)


@pytest.mark.parametrize("content", [
    f"```json {CALL}``` is the format", f"Use ```json {CALL}``` to save.",
    f"The call ```json {CALL}``` stores it.", f"```json {CALL}```, which stores it, is one way",
])
def test_a_one_line_fence_inside_a_sentence_quotes_the_form(content: str) -> None:
    found = find_text_tool_calls(content, NAMES)
    assert (found.calls, found.rest) == ([], content)


@pytest.mark.parametrize("content", [f"```json {CALL}``` Done.", f"```json {CALL}```\nsaved"])
def test_a_one_line_fence_before_a_new_sentence_or_line_runs(content: str) -> None:
    found = find_text_tool_calls(content, NAMES)
    assert [c.name for c in found.calls] == ["core_memory_append"]


def test_the_agent_runs_a_one_line_fenced_call(server: FakeOpenAIServer) -> None:
    call = json.dumps([{"name": "core_memory_append",
                        "arguments": {"content": "Allergic to peanuts"}}])
    result, _ = allergy_turn(server, f"```json {call}```")  # which stores the fact
    assert [(r.name, r.ok, r.from_text) for r in result.tool_results] == [
        ("core_memory_append", True, True)]

"""A bare JSON call the reply begins with, then the model's text (agent/text_call_objects.py)."""

from __future__ import annotations

import json

import pytest
from fake_openai import FakeOpenAIServer
from text_call_turns import allergy_turn

from tiermem.agent.text_tool_calls import find_text_tool_calls

NAMES = ["core_memory_append", "send_message"]
FACT = {"content": "Allergic to peanuts"}
LLAMA_APPEND = json.dumps({"name": "core_memory_append", "parameters": FACT})


@pytest.mark.parametrize(("content", "count", "rest"), [
    (f"{LLAMA_APPEND}\n\nI have saved that.", 1, "I have saved that."),
    (f"{LLAMA_APPEND}\nDone.", 1, "Done."),
    (f"{LLAMA_APPEND};\n{LLAMA_APPEND}\n\nSaved both.", 2, "Saved both."),
    (f"[{LLAMA_APPEND}]\nSaved.\n\nAnything else?", 1, "Saved.\n\nAnything else?"),
])
def test_a_call_the_reply_begins_with_runs_and_the_text_after_it_stays(
        content: str, count: int, rest: str) -> None:
    found = find_text_tool_calls(content, NAMES)
    assert [(c.name, json.loads(c.arguments)) for c in found.calls] == [
        ("core_memory_append", FACT)] * count
    assert found.rest == rest


@pytest.mark.parametrize("content", [
    f"{LLAMA_APPEND} is how a call looks.",  # the text runs on from it on its line
    f'{LLAMA_APPEND}\n{{"status": "ok"}}',  # more JSON after it, not text
    f'{json.dumps({"name": "Alice", "parameters": {}})}\nHi!',  # not an offered tool
    f"A call looks like this:\n{LLAMA_APPEND}\nTry it.",  # after prose: an example
])
def test_json_with_text_that_is_no_leading_call_stays_the_reply(content: str) -> None:
    found = find_text_tool_calls(content, NAMES)
    assert found.calls == [] and found.rest == content


def test_the_agent_runs_the_call_and_keeps_the_text(server: FakeOpenAIServer) -> None:
    result, rows = allergy_turn(server, f"{LLAMA_APPEND}\n\nI have saved that.")
    assert result.reply == "I have saved that."
    assert [(r.name, r.ok, r.from_text) for r in result.tool_results] == [
        ("core_memory_append", True, True)]
    assert all('"parameters"' not in r["content"] for r in rows)

"""Mistral's markup after calls of another form (``<tool_call>{...}</tool_call>[TOOL_CALLS]
NAME[ARGS]{...}``, a fence, bare JSON or a Python list before the marker): the calls of both
forms are calls, in order, and neither is shown as the reply; at the token limit the last is
a call cut mid-way (agent/text_tool_calls.py)."""

from __future__ import annotations

import json

import pytest
from fake_openai import FakeOpenAIServer
from text_call_turns import ALLERGY, ALLERGY_FORMS, allergy_turn

from tiermem.agent.text_tool_calls import find_text_tool_calls

NAMES = ["core_memory_append", "send_message"]
CUT = '[TOOL_CALLS]core_memory_append[ARGS]{"content": "Allergic to pea'
NOTED = '[TOOL_CALLS]send_message[ARGS]{"message": "Noted."}'


@pytest.mark.parametrize("first", ALLERGY_FORMS)
def test_a_call_cut_in_mistral_markup_after_another_form_is_a_cut_call(first: str) -> None:
    found = find_text_tool_calls(first + CUT, NAMES, cut=True)
    assert [(c.name, c.arguments) for c in found.calls] == [
        ("core_memory_append", json.dumps(ALLERGY)),
        ("core_memory_append", CUT.split("[ARGS]")[1])]
    assert found.rest == ""


@pytest.mark.parametrize("cut", [False, True])
@pytest.mark.parametrize("separator", ["", "\n"])
@pytest.mark.parametrize("first", ALLERGY_FORMS)
def test_whole_calls_of_both_forms_run(first: str, separator: str, cut: bool) -> None:
    found = find_text_tool_calls(first + separator + NOTED, NAMES, cut=cut)
    assert [(c.name, json.loads(c.arguments)) for c in found.calls] == [
        ("core_memory_append", ALLERGY), ("send_message", {"message": "Noted."})]
    assert found.rest == ""


def test_prose_before_the_first_form_stays_the_reply() -> None:
    found = find_text_tool_calls(f"Saving it. {ALLERGY_FORMS[1]}{NOTED}", NAMES)
    assert [c.name for c in found.calls] == ["core_memory_append", "send_message"]
    assert found.rest == "Saving it."


def test_the_turn_runs_the_whole_call_and_tells_the_model_of_the_cut_one(
        server: FakeOpenAIServer) -> None:
    server.enqueue_reply(ALLERGY_FORMS[1] + CUT, finish_reason="length")
    result, rows = allergy_turn(server, "Noted.")
    assert [(r.name, r.ok) for r in result.tool_results] == [
        ("core_memory_append", True), ("core_memory_append", False)]
    assert result.reply == "Noted."
    assert result.notice is not None and "in the middle of a call to core_memory_append" \
        in result.notice
    assert not any("[TOOL_CALLS]" in (r["content"] or "") for r in rows)
    stored = [json.loads(c["function"]["arguments"]) for r in rows for c in r["tool_calls"] or []]
    assert stored[0] == ALLERGY and list(stored[1]) == ["omitted"]


EXAMPLE = 'Mistral would write `[TOOL_CALLS]send_message[ARGS]{"message": "Noted."}` instead.'


@pytest.mark.parametrize("first", ALLERGY_FORMS[:3])
def test_mistral_markup_quoted_as_inline_code_after_a_call_is_an_example(first: str) -> None:
    found = find_text_tool_calls(f"{first}\n{EXAMPLE}", NAMES)
    assert [(c.name, json.loads(c.arguments)) for c in found.calls] == [
        ("core_memory_append", ALLERGY)]
    assert found.rest == EXAMPLE


def test_the_turn_shows_the_quoted_markup_and_sends_nothing(server: FakeOpenAIServer) -> None:
    result, _ = allergy_turn(server, f"{ALLERGY_FORMS[1]}\n{EXAMPLE}")
    assert [r.name for r in result.tool_results] == ["core_memory_append"]
    assert result.reply == EXAMPLE

"""Mistral's marker ending a reply with nothing after it, beginning a line or straight after
calls of any form (``...```[TOOL_CALLS]``), is a call the model began and did not write: the
calls before it run, and the marker is no reply (agent/text_call_mistral_prose.py)."""

from __future__ import annotations

import json

import pytest
from fake_openai import FakeOpenAIServer
from text_call_turns import ALLERGY, ALLERGY_CALL, ALLERGY_FORMS, allergy_turn

from tiermem.agent.text_tool_calls import find_text_tool_calls

NAMES = ["core_memory_append", "send_message"]


@pytest.mark.parametrize("marker", ["[TOOL_CALLS]", "\n[TOOL_CALLS]", "\n[TOOL_CALLS] \n"])
@pytest.mark.parametrize(("before", "calls"), [
    *(("", calls) for calls in ALLERGY_FORMS),
    *(("Saving it. ", calls) for calls in ALLERGY_FORMS[:3]),  # markup or a fence after prose
])
def test_the_calls_run_and_the_marker_is_not_shown(calls: str, marker: str,
                                                   before: str) -> None:
    found = find_text_tool_calls(before + calls + marker, NAMES)
    assert [(c.name, json.loads(c.arguments)) for c in found.calls] == [
        ("core_memory_append", ALLERGY)]
    assert found.rest == before.strip()


@pytest.mark.parametrize("content", ["Calls begin with [TOOL_CALLS]",
                                     f"{ALLERGY_CALL} is a call, then [TOOL_CALLS]"])
def test_a_marker_after_prose_alone_stays(content: str) -> None:
    assert find_text_tool_calls(content, NAMES).rest == content


def test_the_turn_runs_the_call_and_shows_no_marker(server: FakeOpenAIServer) -> None:
    result, rows = allergy_turn(server, ALLERGY_FORMS[0] + "[TOOL_CALLS]")
    assert [(r.name, r.ok) for r in result.tool_results] == [("core_memory_append", True)]
    assert result.reply is None and len(server.requests) == 1
    assert not any("[TOOL_CALLS]" in (r["content"] or "") for r in rows)

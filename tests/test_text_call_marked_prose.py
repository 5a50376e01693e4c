"""A fenced block labelled ``tool_calls`` holds calls as a ```json one does, and Mistral's
marker beginning a line of prose after the calls (``[TOOL_CALLS] Done.``) is no call cut
before its name, at the token limit or not: the prose is the reply, without the marker
(agent/text_tool_calls.py)."""

from __future__ import annotations

import json

import pytest
from fake_openai import FakeOpenAIServer
from text_call_turns import allergy_turn

from tiermem.agent.text_tool_calls import find_text_tool_calls

NAMES = ["core_memory_append", "send_message"]
CALLS = json.dumps([{"name": "core_memory_append",
                     "arguments": {"content": "Allergic to peanuts"}}])
FENCED = f"```tool_calls\n{CALLS}\n```\n"


@pytest.mark.parametrize("label", ["tool_calls", "tool_call", "json", ""])
def test_a_fence_labelled_tool_calls_holds_calls(label: str) -> None:
    found = find_text_tool_calls(f"```{label}\n{CALLS}\n```", NAMES)
    assert [(c.name, json.loads(c.arguments)) for c in found.calls] == [
        ("core_memory_append", {"content": "Allergic to peanuts"})]
    assert found.rest == ""


@pytest.mark.parametrize("cut", [False, True])
@pytest.mark.parametrize("after", ["[TOOL_CALLS] Done.", "[TOOL_CALLS]Saved.",
                                   " [TOOL_CALLS] Done."])
def test_a_marker_before_prose_after_the_calls_is_no_call(cut: bool, after: str) -> None:
    found = find_text_tool_calls(FENCED + after, NAMES, cut=cut)
    assert [c.name for c in found.calls] == ["core_memory_append"]
    assert found.rest == after.replace("[TOOL_CALLS]", "").strip()


@pytest.mark.parametrize("fragment", ["[TOOL_CALLS]send_mes", "[TOOL_CALLS]functions.",
                                      "[TOOL_CALLS]s", "[TOOL_CALLS]done"])
def test_the_start_of_an_offered_name_after_a_marker_is_still_a_cut_call(fragment: str) -> None:
    found = find_text_tool_calls(FENCED + fragment, NAMES, cut=True)
    assert [(c.name, c.arguments) for c in found.calls][1:] == [("", fragment)]
    assert found.rest == ""


def test_prose_after_a_marker_alone_stays_the_reply() -> None:
    content = "Mistral begins its calls with\n[TOOL_CALLS] and then a list."
    assert find_text_tool_calls(content, NAMES).rest == content


def test_the_turn_runs_the_fenced_call_and_shows_the_prose_marked_as_cut(
        server: FakeOpenAIServer) -> None:
    server.enqueue_reply(FENCED + "[TOOL_CALLS] Done.", finish_reason="length")
    result, rows = allergy_turn(server)
    assert [(r.name, r.ok) for r in result.tool_results] == [("core_memory_append", True)]
    assert result.reply == "Done. [cut off at max_tokens=1024]"
    assert result.notice is not None and "in the middle of" not in result.notice
    assert not any("[TOOL_CALLS]" in r["content"] for r in rows)

"""Mistral's marker before a sentence after whole calls (``[TOOL_CALLS] I saved it.``), in
a reply cut at the token limit or not: the calls run and the sentence is the reply, not a
call to a tool named by its first word, nor, at the limit, the whole markup shown with
nothing run (agent/text_call_markup.py)."""

from __future__ import annotations

import json

import pytest
from fake_openai import FakeOpenAIServer
from text_call_turns import allergy_turn

from tiermem.agent.loop import Agent
from tiermem.agent.openai_client import OpenAIClient
from tiermem.agent.text_tool_calls import find_text_tool_calls
from tiermem.memory import HashingEmbedder, HierarchicalMemory

NAMES = ["core_memory_append", "send_message"]
ALLERGY = '{"content": "Allergic to peanuts"}'
CALLS = [
    "[TOOL_CALLS]core_memory_append[ARGS]" + ALLERGY,
    "[TOOL_CALLS]core_memory_append" + ALLERGY,
    "[TOOL_CALLS]core_memory_append[CALL_ID]a1b2c3d4e[ARGS]" + ALLERGY,
    "[TOOL_CALLS]" + json.dumps([{"name": "core_memory_append",
                                  "arguments": json.loads(ALLERGY)}]),
]
PROSE = ["I saved that.", "Done!", "Noted, thanks.", "Thanks for telling me.", "Done."]


@pytest.mark.parametrize("cut", [False, True])
@pytest.mark.parametrize("prose", PROSE)
@pytest.mark.parametrize("calls", CALLS)
def test_a_sentence_after_the_marker_is_the_reply(calls: str, prose: str, cut: bool) -> None:
    found = find_text_tool_calls(f"{calls}\n[TOOL_CALLS] {prose}", NAMES, cut=cut)
    assert [(c.name, json.loads(c.arguments)) for c in found.calls] == [
        ("core_memory_append", json.loads(ALLERGY))]
    assert found.rest == prose


def test_prose_between_markers_is_no_call() -> None:
    content = "[TOOL_CALLS] I saved it. [TOOL_CALLS] Done."
    found = find_text_tool_calls(content, NAMES, cut=True)
    assert (found.calls, found.rest) == ([], content)


@pytest.mark.parametrize("cut", [False, True])
def test_a_call_before_prose_between_markers_runs(cut: bool) -> None:
    content = CALLS[0] + "\nThe [TOOL_CALLS] marker starts calls."
    found = find_text_tool_calls(content, NAMES, cut=cut)
    assert [(c.name, c.arguments) for c in found.calls] == [("core_memory_append", ALLERGY)]


def test_the_turn_runs_the_call_and_shows_the_sentence(server: FakeOpenAIServer) -> None:
    server.enqueue_reply(CALLS[0] + "[TOOL_CALLS] I saved that.")
    result, rows = allergy_turn(server)
    assert [(r.name, r.ok) for r in result.tool_results] == [("core_memory_append", True)]
    assert result.reply == "I saved that." and len(server.requests) == 1
    assert [r["content"] for r in rows if r["role"] == "assistant"] == ["I saved that."]


def test_the_turn_cut_after_the_sentence_runs_the_call(server: FakeOpenAIServer) -> None:
    server.enqueue_reply(CALLS[0] + "\n[TOOL_CALLS] Done.", finish_reason="length")
    result, rows = allergy_turn(server)
    assert [(r.name, r.ok) for r in result.tool_results] == [("core_memory_append", True)]
    assert result.reply == "Done. [cut off at max_tokens=1024]"
    assert result.notice is not None and "in the middle of" not in result.notice
    assert not any("[TOOL_CALLS]" in r["content"] for r in rows)


@pytest.mark.parametrize("finish", ["stop", "length"])
@pytest.mark.parametrize("content", ["[TOOL_CALLS] Done.", "[TOOL_CALLS]Sure, I'll keep that.",
                                     "[TOOL_CALLS]\nNoted!"])
def test_a_lone_marker_before_a_sentence_is_not_shown(server: FakeOpenAIServer, content: str,
                                                     finish: str) -> None:
    server.enqueue_reply(content, finish_reason=finish)
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        client = OpenAIClient("fake-model", base_url=server.base_url, max_retries=0)
        result = Agent(memory, client).step("Thanks!")
        rows = memory.recall.rows(range(1, len(memory.recall) + 1))
    said = content.removeprefix("[TOOL_CALLS]").strip()
    assert result.tool_results == []
    assert result.reply in (said, f"{said} [cut off at max_tokens=1024]")
    assert [r["content"] for r in rows if r["role"] == "assistant"] == [result.reply]


@pytest.mark.parametrize("content", ["[TOOL_CALLS] is how Mistral marks its calls.",
                                     "[TOOL_CALLS] Use {...} after the name."])
def test_a_sentence_about_the_marker_keeps_it(content: str) -> None:
    assert find_text_tool_calls(content, NAMES).rest == content


BARE = json.dumps([{"name": "core_memory_append", "arguments": json.loads(ALLERGY)}])


@pytest.mark.parametrize("cut", [False, True])
@pytest.mark.parametrize("tail", ["\n[TOOL_CALLS] Done.", "[TOOL_CALLS]Done",
                                  "\n[TOOL_CALLS] Saved!"])
@pytest.mark.parametrize("calls", [
    BARE, '[core_memory_append(content="Allergic to peanuts")]', f"```tool_calls\n{BARE}\n```",
    CALLS[0]])
def test_a_sentence_after_calls_of_any_form_is_the_reply(calls: str, tail: str,
                                                         cut: bool) -> None:
    found = find_text_tool_calls(calls + tail, NAMES, cut=cut)
    assert [(c.name, json.loads(c.arguments)) for c in found.calls] == [
        ("core_memory_append", json.loads(ALLERGY))]
    assert found.rest == tail.replace("[TOOL_CALLS]", "").strip()


def test_a_capitalised_word_at_the_cut_is_the_reply_not_a_cut_call(
        server: FakeOpenAIServer) -> None:
    server.enqueue_reply(CALLS[0] + "[TOOL_CALLS]Done", finish_reason="length")
    result, _rows = allergy_turn(server)
    assert [(r.name, r.ok) for r in result.tool_results] == [("core_memory_append", True)]
    assert result.reply == "Done [cut off at max_tokens=1024]"
    assert result.notice is not None and "in the middle of" not in result.notice


@pytest.mark.parametrize("cut", [False, True])
def test_a_marker_named_in_a_sentence_after_calls_stays(cut: bool) -> None:
    found = find_text_tool_calls(f"{BARE}\nThe [TOOL_CALLS] marker starts calls.", NAMES, cut=cut)
    assert found.rest == "The [TOOL_CALLS] marker starts calls."


LIST = "[TOOL_CALLS]" + json.dumps([{"name": "core_memory_append",
                                     "arguments": json.loads(ALLERGY)}])


@pytest.mark.parametrize(("content", "rest"), [
    (f"{LIST}\nI saved that.", "I saved that."),
    (f"{LIST} Done!", "Done!"),
    (LIST.replace("]", "] ", 1) + "\n\nThanks for telling me.", "Thanks for telling me."),
    (f"Noted.\n{LIST}\nI saved that.", "Noted. I saved that."),
    (f"Got it! {LIST} I saved that.", "Got it! I saved that."),
])
def test_a_sentence_after_the_calls_a_marker_begins_is_the_reply(content: str,
                                                                  rest: str) -> None:
    found = find_text_tool_calls(content, NAMES)
    assert [(c.name, json.loads(c.arguments)) for c in found.calls] == [
        ("core_memory_append", json.loads(ALLERGY))]
    assert found.rest == rest


def test_markup_a_sentence_goes_on_from_after_a_list_is_shown() -> None:
    content = f"Mistral writes {LIST} before its reply."
    assert find_text_tool_calls(content, NAMES).rest == content


def test_the_agent_saves_the_fact_of_calls_prose_follows(server: FakeOpenAIServer) -> None:
    result, _ = allergy_turn(server, f"{LIST}\nI saved that.")
    assert [(r.name, r.ok) for r in result.tool_results] == [("core_memory_append", True)]
    assert result.reply == "I saved that."

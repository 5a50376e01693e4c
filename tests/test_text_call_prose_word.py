"""After Mistral's marker, a word that names no offered tool and goes on in prose
(``[TOOL_CALLS] Noted (saved).``), or a capitalised word alone before another marker
(``[TOOL_CALLS]Done[TOOL_CALLS]``), is the reply, not a call to a tool named by the word;
a name followed by its arguments, or the name of an offered tool, stays a call
(agent/text_call_mistral_prose.py)."""

from __future__ import annotations

import pytest
from fake_openai import FakeOpenAIServer
from text_call_turns import allergy_turn

from tiermem.agent.loop import Agent
from tiermem.agent.openai_client import OpenAIClient
from tiermem.agent.text_tool_calls import find_text_tool_calls
from tiermem.memory import HashingEmbedder, HierarchicalMemory

NAMES = ["core_memory_append", "send_message"]
CALL = '[TOOL_CALLS]core_memory_append[ARGS]{"content": "x"}'


@pytest.mark.parametrize(("after", "rest"), [
    ("[TOOL_CALLS] Noted (saved).", "Noted (saved)."),
    ("[TOOL_CALLS]Done[TOOL_CALLS]", "Done"),
    ('[TOOL_CALLS]Done "x" saved', 'Done "x" saved'),
    ("[TOOL_CALLS]Done [see above]", "Done [see above]"),
    ("[TOOL_CALLS]Noted\n[TOOL_CALLS]Saved", "Noted Saved"),
    ("[TOOL_CALLS]Done[TOOL_CALLS]Thanks", "Done Thanks"),
])
def test_a_word_then_prose_is_the_reply(after: str, rest: str) -> None:
    found = find_text_tool_calls(CALL + after, NAMES)
    assert [(c.name, c.arguments) for c in found.calls] == [
        ("core_memory_append", '{"content": "x"}')]
    assert found.rest == rest


def test_a_word_then_prose_alone_is_the_reply_without_the_marker() -> None:
    found = find_text_tool_calls("[TOOL_CALLS] Noted (saved).", NAMES)
    assert (found.calls, found.rest) == ([], "Noted (saved).")


@pytest.mark.parametrize(("after", "call"), [
    ("[TOOL_CALLS]s", ("s", "")),
    ('[TOOL_CALLS]save("x")', ("save", '("x")')),
    ('[TOOL_CALLS]save_fact[ARGS]{"fact": "x"}', ("save_fact", '{"fact": "x"}')),
    ("[TOOL_CALLS]send_message", ("send_message", "{}")),
])
def test_a_name_or_a_call_written_wrong_stays_a_call(after: str, call: tuple[str, str]) -> None:
    found = find_text_tool_calls(CALL + after, NAMES)
    assert [(c.name, c.arguments) for c in found.calls][1:] == [call]


@pytest.mark.parametrize("after", ['[TOOL_CALLS]save("x")', "[TOOL_CALLS]Done[TOOL_CALLS]Thanks",
                                   '[TOOL_CALLS]"Saved"', "[TOOL_CALLS] Noted (saved)."])
def test_markup_written_wrong_reads_the_same_at_the_token_limit(after: str) -> None:
    # A reply cut after markup written wrong: its whole calls run, as when not cut.
    whole, cut = (find_text_tool_calls(CALL + after, NAMES, cut=at) for at in (False, True))
    assert [(c.name, c.arguments) for c in cut.calls] \
        == [(c.name, c.arguments) for c in whole.calls]
    assert cut.calls[0].arguments == '{"content": "x"}' and cut.rest == whole.rest


@pytest.mark.parametrize(("after", "call"), [
    ("[TOOL_CALLS]save_note (x)", ("save_note", "(x)")),
    ("[TOOL_CALLS]save_note [x]", ("save_note", "[x]")),
    ('[TOOL_CALLS]save_note "x"', ("save_note", '"x"')),
    ("[TOOL_CALLS]save_note x", ("save_note", "x")),
    ("[TOOL_CALLS]saveNote (x)", ("saveNote", "(x)")),
    ("[TOOL_CALLS]send_mesage (hi)", ("send_mesage", "(hi)")),
    ("[TOOL_CALLS]Send_message hi there", ("Send_message", "hi there")),
])
def test_a_word_written_as_a_tool_name_is_a_call_after_calls_or_alone(
        after: str, call: tuple[str, str]) -> None:
    # A name the model got wrong, with its arguments written wrong: a call it meant, run to
    # tell it the tool is unknown, not prose shown and never saved.
    found = find_text_tool_calls(CALL + after, NAMES)
    assert [(c.name, c.arguments) for c in found.calls] == [
        ("core_memory_append", '{"content": "x"}'), call]
    assert found.rest == ""
    alone = find_text_tool_calls(after, NAMES)
    assert ([(c.name, c.arguments) for c in alone.calls], alone.rest) == ([call], "")


def test_a_capitalised_word_near_an_offered_name_is_a_call() -> None:
    found = find_text_tool_calls(CALL + "[TOOL_CALLS]Forget[TOOL_CALLS]", [*NAMES, "forget"])
    assert [c.name for c in found.calls] == ["core_memory_append", "Forget"]


def test_the_agent_answers_a_wrong_name_after_a_call_as_unknown(
        server: FakeOpenAIServer) -> None:
    corrected = '[TOOL_CALLS]send_message[ARGS]{"message": "Noted."}'
    result, _ = allergy_turn(
        server, '[TOOL_CALLS]core_memory_append[ARGS]{"content": "Allergic to peanuts"}'
                '[TOOL_CALLS]save_note (peanuts)', corrected)
    assert [(r.name, r.ok) for r in result.tool_results] == [
        ("core_memory_append", True), ("save_note", False), ("send_message", True)]
    assert "save_note" in result.tool_results[1].content
    assert result.reply == "Noted."


@pytest.mark.parametrize("after", [
    "Forget it (no need)", "Forget about it.", "Forget, it's gone", "FORGET it",
    "JavaScript is noted", "iPhone (noted)", "YouTube link saved", "McDonald's is noted",
])
def test_a_capitalised_word_or_a_brand_then_prose_is_the_reply(after: str) -> None:
    # A sentence's first word near a tool's name ("Forget" beside forget), or a brand's
    # camelCase, is no call: answered as unknown, it would ask the model whether it meant
    # to forget, when it said never mind.
    names = [*NAMES, "forget"]
    found = find_text_tool_calls(f"{CALL}[TOOL_CALLS]{after}", names)
    assert ([(c.name, c.arguments) for c in found.calls], found.rest) == (
        [("core_memory_append", '{"content": "x"}')], after)
    alone = find_text_tool_calls(f"[TOOL_CALLS] {after}", names)
    assert (alone.calls, alone.rest.removeprefix("[TOOL_CALLS] ")) == ([], after)


def test_a_capitalised_name_near_an_offered_one_with_its_arguments_is_a_call() -> None:
    found = find_text_tool_calls('[TOOL_CALLS]Forget("peanuts")', [*NAMES, "forget"])
    assert [(c.name, c.arguments) for c in found.calls] == [("Forget", '("peanuts")')]


def test_the_agent_shows_forget_it_after_a_call_and_runs_nothing_else(
        server: FakeOpenAIServer) -> None:
    result, _ = allergy_turn(
        server, '[TOOL_CALLS]core_memory_append[ARGS]{"content": "Allergic to peanuts"}'
                '[TOOL_CALLS]Forget it (no need)')
    assert [(r.name, r.ok) for r in result.tool_results] == [("core_memory_append", True)]
    assert result.reply == "Forget it (no need)"


@pytest.mark.parametrize("content", [
    "[TOOL_CALLS]Forget", "[TOOL_CALLS]Forgets", "[TOOL_CALLS]Forget\n",
    "[TOOL_CALLS]Forget[TOOL_CALLS]", "[TOOL_CALLS]\nFORGET", "[TOOL_CALLS]Done[TOOL_CALLS]",
])
@pytest.mark.parametrize("cut", [False, True])
def test_a_capitalised_word_alone_that_made_no_call_is_the_reply(content: str,
                                                                 cut: bool) -> None:
    # No call came of it, so the marker is no reply: the word the model wrote is.
    found = find_text_tool_calls(content, [*NAMES, "forget"], cut=cut)
    said = content.replace("[TOOL_CALLS]", "").strip()
    assert (found.calls, found.rest) == ([], said)


def test_the_agent_shows_a_lone_word_after_the_marker_without_it(
        server: FakeOpenAIServer) -> None:
    server.enqueue_reply("[TOOL_CALLS]Forget[TOOL_CALLS]")
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        client = OpenAIClient("fake-model", base_url=server.base_url, max_retries=0)
        result = Agent(memory, client).step("Never mind.")
    assert (result.tool_results, result.reply) == ([], "Forget")


@pytest.mark.parametrize("after", [
    "macOS noted", "macOS is updated", "iOS is updated", "iPadOS (noted)",
])
def test_a_brand_lowercase_before_its_capitals_then_prose_is_the_reply(after: str) -> None:
    # "macOS" is no tool's name written in camelCase, whose capitals each begin a word.
    found = find_text_tool_calls(f"{CALL}[TOOL_CALLS]{after}", NAMES)
    assert ([(c.name, c.arguments) for c in found.calls], found.rest) == (
        [("core_memory_append", '{"content": "x"}')], after)
    alone = find_text_tool_calls(f"[TOOL_CALLS]{after}", NAMES)
    assert (alone.calls, alone.rest) == ([], after)


@pytest.mark.parametrize("content", ["[TOOL_CALLS]macOS", "[TOOL_CALLS]iOS[TOOL_CALLS]"])
def test_a_brand_alone_that_made_no_call_is_the_reply(content: str) -> None:
    found = find_text_tool_calls(content, NAMES)
    assert (found.calls, found.rest) == ([], content.replace("[TOOL_CALLS]", ""))


@pytest.mark.parametrize(("after", "call"), [
    ("macOS(x)", ("macOS", "(x)")), ('macOS[ARGS]{"a": 1}', ("macOS", '{"a": 1}')),
    ("getURL(x)", ("getURL", "(x)")), ("saveNote x", ("saveNote", "x")),
])
def test_a_camel_case_name_with_its_arguments_stays_a_call(after: str,
                                                          call: tuple[str, str]) -> None:
    alone = find_text_tool_calls(f"[TOOL_CALLS]{after}", NAMES)
    assert ([(c.name, c.arguments) for c in alone.calls], alone.rest) == ([call], "")

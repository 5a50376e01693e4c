"""Mistral's calls after prose and before more of it, or before words that are no plain
letters (an emoji, markdown, "¡"), and Llama 3.1's ``<|python_tag|>`` call with a line of
prose after it: the calls run and the words around them are the reply, not the markup shown
with the fact never saved (agent/text_call_mistral_prose.py, agent/text_call_markup.py)."""

from __future__ import annotations

import json

import pytest
from fake_openai import FakeOpenAIServer
from text_call_turns import allergy_turn

from tiermem.agent.text_tool_calls import find_text_tool_calls

NAMES = ["core_memory_append", "send_message"]
FACT = {"content": "Allergic to peanuts"}
LISTED = "[TOOL_CALLS] " + json.dumps([{"name": "core_memory_append", "arguments": FACT}])
NAMED = "[TOOL_CALLS]core_memory_append[ARGS]" + json.dumps(FACT)
TAGGED = "<|python_tag|>" + json.dumps({"name": "core_memory_append", "parameters": FACT})


@pytest.mark.parametrize(("content", "rest"), [
    (f"{LISTED} \u2705", "\u2705"),
    (f"{LISTED}\n**Saved!**", "**Saved!**"),
    (f"Claro:\n{LISTED}\n\u00a1Listo!", "Claro: \u00a1Listo!"),
    (f"\U0001f44d {LISTED}\nC'est not\u00e9 !", "\U0001f44d C'est not\u00e9 !"),
    (f"Right away.\n{NAMED}\nDone!", "Right away. Done!"),
    (f"Alles klar!\n{NAMED} \u2705", "Alles klar! \u2705"),
    (f"{NAMED}\n_Erledigt._", "_Erledigt._"),
    (f"{TAGGED}\nI have saved that.", "I have saved that."),
    (f"Entendido.\n{TAGGED}\n\u00a1Listo!", "Entendido. \u00a1Listo!"),
    (f"Noted! {TAGGED}\n\u2705 Saved", "Noted! \u2705 Saved"),
    (f"Okay, I will keep this: {NAMED}\nDone!", "Okay, I will keep this: Done!"),
    (f"Gespeichert: {TAGGED}\nFertig.", "Gespeichert: Fertig."),
])
def test_the_calls_run_and_the_words_around_them_are_the_reply(content: str, rest: str) -> None:
    found = find_text_tool_calls(content, NAMES)
    assert [(c.name, json.loads(c.arguments)) for c in found.calls] == [
        ("core_memory_append", FACT)]
    assert found.rest == rest


@pytest.mark.parametrize("content", [
    f"Mistral writes {NAMED} before its reply.",
    f"Mistral writes {LISTED} before its reply.",
    f"Llama writes {TAGGED}\nlike that.",
    f"{TAGGED} is how Llama calls a tool.",
    f"Here is an example:\n{LISTED}\nThat's all it takes.",
    f"For instance:\n{NAMED}\nYou get the idea.",
    f"A sample call:\n{TAGGED}\nNothing more to it.",
    f"Tools are called so:\n{LISTED}\nThat is just an example.",
    f"The format is: {LISTED} then your text.",
])
def test_markup_a_sentence_goes_on_from_or_an_example_is_shown(content: str) -> None:
    assert find_text_tool_calls(content, NAMES).calls == []


@pytest.mark.parametrize("calls", [NAMED, TAGGED])
def test_the_agent_saves_the_fact_between_sentences(server: FakeOpenAIServer,
                                                    calls: str) -> None:
    result, _ = allergy_turn(server, f"Verstanden.\n{calls}\n\u00a1Listo!")
    assert [(r.name, r.ok) for r in result.tool_results] == [("core_memory_append", True)]
    assert result.reply == "Verstanden. \u00a1Listo!"


@pytest.mark.parametrize("word", ["ok", "noted", "gracias"])
def test_a_plain_word_after_the_last_marker_is_the_reply(word: str) -> None:
    found = find_text_tool_calls(f"{LISTED} [TOOL_CALLS] {word}", NAMES)
    assert [c.name for c in found.calls] == ["core_memory_append"]
    assert found.rest == word


@pytest.mark.parametrize("word", ["get_weather", "core", "send_mesage"])
def test_a_word_written_as_a_name_after_the_last_marker_is_a_call(word: str) -> None:
    found = find_text_tool_calls(f"{LISTED} [TOOL_CALLS] {word}", NAMES)
    assert [c.name for c in found.calls] == ["core_memory_append", word]

"""A fenced call over several lines that a sentence opens and goes on from ("You could call it
like this ```json ... ``` to save a fact."), that a sentence opening "For instance," or "For
example," leads into whatever its last clause says, or that "This is what the call looks
like:" leads into, shows the form and is not run; one the model says it stores still runs,
as does one after a whole sentence or words that answer the user ("Noted, ```json ... ```
and that's it."), or after how the model's own update looks ("Here's what my memory update
looks like:") (agent/text_call_fences.py)."""

from __future__ import annotations

import json

import pytest
from fake_openai import FakeOpenAIServer
from text_call_turns import explained_turn

from tiermem.agent.text_tool_calls import calls_ending_thinking, find_text_tool_calls

NAMES = ["core_memory_append", "send_message"]
CALL = json.dumps({"name": "core_memory_append", "arguments": {"content": "x"}})
FENCE = f"```json\n{CALL}\n```"
TOOL_CODE = '```tool_code\ncore_memory_append(content="x")\n```'

SHOWN = [
    f"You could call it like this {FENCE} to save a fact.",
    f"Call it like this {FENCE} to save a fact.",
    f"The call {FENCE}, which stores it, is one way.",
    f"For instance, to remember a name:\n{FENCE}",
    f"For example, your name:\n{FENCE}",
    f"E.g., to keep your city:\n{FENCE}",
    f"This is what the call looks like:\n{FENCE}",
    f"Here is how a call looks:\n{FENCE}",
    f"Here's what a tool call looks like:\n{FENCE}",
    f"Here's how the JSON looks:\n{FENCE}",
    # "e.g." and "i.e." end no sentence, and lead in with their dots or without some.
    f"E.g. to keep your city:\n{FENCE}",
    f"Tools take JSON. e.g to keep your city:\n{FENCE}",
    f"I can remember things, i.e. facts like:\n{FENCE}",
    f"I can remember things, eg. your city:\n{FENCE}",
    f"To give you an example, here's one:\n{FENCE}",
    f"As an example, here it is:\n{FENCE}",
    f"For ex:\n{FENCE}",
    f"Thanks. For ex. your city:\n{FENCE}",
    # In Spanish, German or French.
    f"Ejemplo:\n{FENCE}", f"Zum Beispiel:\n{FENCE}", f"Exemple :\n{FENCE}",
    f"Por ejemplo, as\u00ed se ver\u00eda una llamada:\n{FENCE}", f"Par exemple :\n{FENCE}",
    # Gemma's tool_code block, as a fenced call.
    f"An example tool call:\n{TOOL_CODE}", f"Here's what a tool call looks like:\n{TOOL_CODE}",
    f"For instance, your city:\n{TOOL_CODE}", f"{TOOL_CODE}\nThat is just an example.",
]


@pytest.mark.parametrize("content", SHOWN)
@pytest.mark.parametrize("cut", [False, True])
def test_a_fenced_call_shown_as_the_form_is_the_reply(content: str, cut: bool) -> None:
    found = find_text_tool_calls(content, NAMES, cut=cut)
    assert (found.calls, found.rest) == ([], content)


@pytest.mark.parametrize("content", SHOWN[3:])
def test_a_fenced_call_thought_of_as_the_form_is_no_call(content: str) -> None:
    assert calls_ending_thinking(content, NAMES).calls == []


@pytest.mark.parametrize(("content", "rest"), [
    (f"I'll save it {FENCE} for you.", "I'll save it for you."),
    (f"For instance, I'll save your name:\n{FENCE}", "For instance, I'll save your name:"),
    (f"Saving it.\n{FENCE}\nand done.", "Saving it.\n\nand done."),
    (f"{FENCE} Done.", "Done."),
    (f"Looks like you like tea! Saving:\n{FENCE}", "Looks like you like tea! Saving:"),
    # A fence over lines after a whole sentence, or words that answer the user, is the call.
    (f"Noted, {FENCE} and that's it.", "Noted, and that's it."),
    (f"Got it! {FENCE} and I'll keep it in mind.", "Got it! and I'll keep it in mind."),
    (f"Sure {FENCE} done.", "Sure done."),
    (f"Thanks for sharing {FENCE} and enjoy Lisbon!", "Thanks for sharing and enjoy Lisbon!"),
    (f"Makes sense. Saving {FENCE} now.", "Makes sense. Saving now."),
    (f"Here you go: {FENCE} all set.", "Here you go: all set."),
    (f"Hi Ana {FENCE} nice to meet you.", "Hi Ana nice to meet you."),
    (f"Lisbon, nice {FENCE} and noted.", "Lisbon, nice and noted."),
    (f"Your city {FENCE} is saved now.", "Your city is saved now."),
    # How the model's own update looks, not a call's form in general, is the update made.
    (f"Here's what my memory update looks like:\n{FENCE}",
     "Here's what my memory update looks like:"),
    (f"Here's how your profile looks now:\n{FENCE}", "Here's how your profile looks now:"),
    (f"Thanks! Here's how it looks in memory:\n{FENCE}", "Thanks! Here's how it looks in memory:"),
    (f"Noted. For extra safety:\n{FENCE}", "Noted. For extra safety:"),
    (f"Ein gutes Beispiel, ich speichere es:\n{FENCE}", "Ein gutes Beispiel, ich speichere es:"),
    (f"Entendido, lo guardo:\n{FENCE}", "Entendido, lo guardo:"),
])
def test_a_fenced_call_the_model_makes_runs(content: str, rest: str) -> None:
    found = find_text_tool_calls(content, NAMES)
    assert ([c.name for c in found.calls], found.rest) == (["core_memory_append"], rest)


@pytest.mark.parametrize("reply", [SHOWN[0], SHOWN[3], SHOWN[6]])
def test_the_agent_shows_the_form_and_stores_nothing(server: FakeOpenAIServer,
                                                     reply: str) -> None:
    explained_turn(server, reply, "How do you save a fact?")


@pytest.mark.parametrize("lead", ["Saving it:\n", "Got it! Here's the update:\n", ""])
def test_a_tool_code_block_the_model_makes_runs(lead: str) -> None:
    assert [c.name for c in find_text_tool_calls(lead + TOOL_CODE, NAMES).calls] == [
        "core_memory_append"]

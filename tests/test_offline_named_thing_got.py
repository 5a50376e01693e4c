"""A named thing the user got is one the user has: "I got a dog named Rex" is stored as
"I have a dog named Rex" is, so "What is my dog's name?" finds it in core."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_after

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.extract import extract_facts


@pytest.mark.parametrize(("got", "had"), [
    ("I got a dog named Rex.", "I have a dog named Rex."),
    ("I adopted a dog named Rex.", "I have a dog named Rex."),
    ("I bought a boat called Sea Breeze.", "I have a boat called Sea Breeze."),
    ("I just rescued a little black kitten named Miso last week.",
     "I have a little black kitten named Miso."),
    ("We got a cat called Tom.", "We have a cat called Tom."),
])
def test_a_named_thing_got_is_stored_as_one_had(got: str, had: str) -> None:
    assert core_after(got) == core_after(had)


def test_the_dog_got_answers_its_name() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, "I got a dog named Rex.", "What is my dog's name?")[-1]
    assert "User has a dog named Rex" in reply


def test_the_quoted_form_earlier_versions_stored_is_still_known() -> None:
    fact, = extract_facts("I got a dog named Rex.")
    assert (fact.text, fact.former) == ("User has a dog named Rex",
                                        "User: I got a dog named Rex")
    assert fact.durability == "durable"


@pytest.mark.parametrize("sentence", [
    "I got a letter named in the lawsuit.",
    "I got a call from a guy named Tom.",
    "I got a dog named Rex and a cat.",
])
def test_what_names_no_thing_got_is_stored_as_before(sentence: str) -> None:
    fact, = extract_facts(sentence)
    assert fact.text == f"User: {sentence.rstrip('.')}"

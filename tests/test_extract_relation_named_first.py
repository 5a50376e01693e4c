"""A relation named with the name first ("Ana is my boss.") lasts as the same fact said
with the relation first ("My boss is Ana.") does."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.extract import extract_facts


@pytest.mark.parametrize(("name_first", "relation_first"), [
    ("Ana is my boss.", "My boss is Ana."),
    ("Priya is my manager.", "My manager is Priya."),
    ("Dr. Silva is my dentist.", "My dentist is Dr. Silva."),
    ("Ana Lima is my boss.", "My boss is Ana Lima."),
    ("So, Ana is my boss.", "So, my boss is Ana."),
    ("Tom is my brother.", "My brother is Tom."),
])
def test_the_name_first_lasts_as_the_relation_first_does(
        name_first: str, relation_first: str) -> None:
    fact, = extract_facts(name_first)
    other, = extract_facts(relation_first)
    assert (fact.durability, fact.cue) == (other.durability, other.cue)
    assert fact.durability == "durable"


@pytest.mark.parametrize("text", [
    "This is my boss.",            # points at someone, names no one
    "Tuesday is my dentist.",      # when, not who
    "Ana is my boss now.",         # as passing as "My boss is Ana now."
    "Ana is my boss and friend.",  # more than the relation after the name
])
def test_what_names_no_lasting_relation_stays_short_lived(text: str) -> None:
    fact, = extract_facts(text)
    assert fact.durability == "short-lived"


def test_the_offline_policy_keeps_the_name_first_durable_in_core() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        chat(memory, "Ana is my boss.")
        assert core_of(memory) == {"Ana is User's boss": "durable"}

"""A retraction or denial joined to the user's next clause by a bare "but" ("I don't live
in Lisbon anymore but I work in Lisbon") is read apart from it, as one after a comma is:
read whole, it ended what it denied and lost the fact said after it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.statements import own_clauses


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("held", "said", "now"), [
    ("I live in Lisbon.", "I don't live in Lisbon anymore but I work in Lisbon.",
     ["User works in Lisbon"]),
    # As "I'm not vegetarian anymore, I eat fish now" is.
    ("I'm vegetarian.", "I'm not vegetarian anymore but I eat fish now.", ["User: I eat fish"]),
    ("I'm vegetarian.", "I'm not vegetarian anymore but I'm pescatarian now.",
     ["User is pescatarian"]),
])
def test_a_bare_but_keeps_the_fact_after_it(memory: HierarchicalMemory, held: str, said: str,
                                            now: list[str]) -> None:
    chat(memory, held, said)
    assert sorted(core_of(memory)) == sorted(now)


def test_a_bare_but_opens_a_clause_of_the_speakers_own_only() -> None:
    assert own_clauses("I don't live in Lisbon anymore but I work in Lisbon") == [
        "I don't live in Lisbon anymore", "I work in Lisbon"]
    assert own_clauses("I'm not on call anymore but Priya is") == [
        "I'm not on call anymore but Priya is"]
    assert own_clauses("I don't work at Google anymore but my wife does") == [
        "I don't work at Google anymore but my wife does"]

""""..., I also work there": a later clause's "I" before "also" and a head verb is told of
the user as any later clause is, never left in the fact as whoever reads it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.extract import extract_facts
from tiermem.memory.text.person import BEFORE_RETURN, third_person


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("said", "told"), [
    ("I live in Lisbon, I also work there", "User lives in Lisbon, User also works there"),
    ("I live in Lisbon, and I also have a dog", "User lives in Lisbon, and User also has a dog"),
    # No head verb follows: the clause stays the speaker's words.
    ("I live in Lisbon, I also think so", "User lives in Lisbon, I also think so"),
])
def test_i_also_opening_a_later_clause_is_told_of_the_user(said: str, told: str) -> None:
    assert third_person(said, "User") == told


def test_the_fact_stored_before_is_still_known() -> None:
    said = "I live in Lisbon, I also work there"
    assert third_person(said, "User", BEFORE_RETURN) == "User lives in Lisbon, I also work there"
    (fact,) = extract_facts(said)
    assert "User lives in Lisbon, I also work there" in fact.formers


def test_chat_stores_no_first_person(memory: HierarchicalMemory) -> None:
    chat(memory, "I work at Acme.", "I live in Lisbon, I also work at Globex")
    # "also" says Globex is beside Acme, not instead of it; the home and the job told
    # after the comma are two facts, so a move away keeps the job.
    assert sorted(core_of(memory)) == ["User lives in Lisbon", "User works at Acme",
                                       "User works at Globex"]

""""I live in Lisbon and work there": a head verb after "and" that shares the speaker's
subject is told of the user too ("User lives in Lisbon and works there"), never left in
the plural; one that belongs to an infinitive, a negation or someone else stays."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_after, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.person import third_person


@pytest.mark.parametrize(("said", "told"), [
    ("I live in Lisbon and work there", "User lives in Lisbon and works there"),
    ("I live and work in Lisbon", "User lives and works in Lisbon"),
    ("I moved to Lisbon and work there", "User moved to Lisbon and works there"),
    ("I am vegan and love cats", "User is vegan and loves cats"),
    ("I live in Lisbon but also work in Porto", "User lives in Lisbon but also works in Porto"),
    ("I live in Lisbon, and work there", "User lives in Lisbon, and works there"),
    # the verb is the infinitive's, the negation's, or the friends'
    ("I want to live in Lisbon and work there", "User wants to live in Lisbon and work there"),
    ("I don't live in Lisbon and work there", "User doesn't live in Lisbon and work there"),
    ("I have friends who live in Lisbon and work there",
     "User has friends who live in Lisbon and work there"),
    ("My wife lives in Lisbon and work there", "User's wife lives in Lisbon and work there"),
])
def test_a_verb_sharing_the_speakers_subject_is_told_of_the_user(said: str, told: str
                                                                  ) -> None:
    assert third_person(said, "User") == told


def test_a_fact_stored_in_the_plural_before_is_said_again_not_doubled() -> None:
    # earlier versions stored the second verb as said: that fact is still this one
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        memory.add_fact("User lives in Lisbon and work there", "durable")
        chat(memory, "I live in Lisbon and work there")
        assert list(core_of(memory)) == ["User lives in Lisbon and work there"]


def test_chat_stores_the_verb_told_of_the_user() -> None:
    assert core_after("I live in Lisbon and work there") == [
        "User lives in Lisbon and works there"]
    # read as the user's job, the second verb is changed on its own
    assert core_after("I live in Lisbon and work at Acme.", "I work at Globex now.") == [
        "User lives in Lisbon", "User works at Globex"]

"""A "too" that can share only one thing is told in full: "My wife too." after "I live in
Lisbon." says where she lives, and "the database too" closing "The API is down, ..." says
the database is down. Stored as said, the first was dropped and the second kept as the
fragment "The API is down, the database"."""

from __future__ import annotations

from offline_helpers import chat, core_after, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.ellipses import with_ellipses_filled

#: What each message leaves in core, in full.
TOLD = {
    "I live in Lisbon. My wife too.": ["User lives in Lisbon", "User's wife lives in Lisbon"],
    "I live in Lisbon, my wife too.": ["User lives in Lisbon", "User's wife lives in Lisbon"],
    "I'm vegan. My brother too.": ["User is vegan", "User's brother is vegan"],
    "I work at Acme. My wife too.": ["User works at Acme", "User's wife works at Acme"],
    "The API is down, the database too.": ["The API is down", "The database is down"],
    "The API is down and the database too.": ["The API is down", "The database is down"],
    "The API is down. The database too.": ["The API is down", "The database is down"],
}
#: A "too" whose share may be another reading ("I love my wife too", "I work with my wife
#: too", "I'm married to my brother too"): nothing but the statement before it is stored.
UNCLEAR = ("I love jazz. My wife too.", "I work with Tom. My wife too.",
           "I'm married to Ana. My brother too.", "I'm allergic to peanuts. My son too.",
           "The API is down. Tom too.")


def test_a_share_of_one_reading_is_told_in_full() -> None:
    assert {said: sorted(core_after(said)) for said in TOLD} == {
        said: sorted(facts) for said, facts in TOLD.items()}


def test_a_share_of_two_readings_stores_only_the_statement() -> None:
    for said in UNCLEAR:
        assert len(core_after(said)) == 1, (said, core_after(said))


def test_a_share_naming_its_verb_after_a_comma_is_told_in_full() -> None:
    # "my wife is too" closing a sentence by a comma is told as "and my wife is too" is;
    # cut as a share of someone, it read "My wife is is vegan"
    assert with_ellipses_filled(["I'm vegan, my wife is too."]) == [
        "I'm vegan", "My wife is vegan"]


def test_the_reply_no_longer_says_the_share_was_dropped() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, "I live in Lisbon.", "My wife too.")[1]
        assert "User's wife lives in Lisbon" in core_of(memory)
    assert "alone does not say" not in reply

"""A statement that says the one before it was wrong replaces it, and loses nothing new."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.statements import Statement, read_statement


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("sentence", "expected"), [
    ("No, my son is Eva.", Statement("My son is Eva.", "no")),
    ("Nope - my son is Eva.", Statement("My son is Eva.", "nope")),
    ("I meant my son is Eva.", Statement("My son is Eva.", "i meant")),
    ("No, I meant I live in Porto.", Statement("I live in Porto.", "no, i meant")),
    # No statement of the speaker's follows: nothing is said to be wrong.
    ("No one told me.", Statement("No one told me.")),
    ("I meant it.", Statement("I meant it.")),
    ("I meant to call you.", Statement("I meant to call you.")),
])
def test_no_and_i_meant_open_a_correction(sentence: str, expected: Statement) -> None:
    assert read_statement(sentence) == expected


@pytest.mark.parametrize("cue", ["No, ", "Sorry, ", "Actually, ", "I meant ", "Oops, "])
@pytest.mark.parametrize(("first", "then", "left"), [
    ("My son is Ana.", "my son is Eva.", "User's son is Eva"),
    ("My brother is Tom.", "my brother is Sam.", "User's brother is Sam"),
    ("My friend is Tom.", "my friend is Sam.", "User's friend is Sam"),
    ("My cousin is Ana.", "my cousin is Eva.", "User's cousin is Eva"),
    ("My son's name is Ana.", "my son's name is Eva.", "User's son's name is Eva"),
])
def test_a_second_name_said_as_a_correction_replaces_the_first(
        memory: HierarchicalMemory, cue: str, first: str, then: str, left: str) -> None:
    chat(memory, first, cue + then)
    assert list(core_of(memory)) == [left]


@pytest.mark.parametrize(("sentence", "expected"), [
    ("My son is no longer Ana, it's Eva.", Statement("My son is Eva", "correction")),
    ("My son isn't Ana anymore, he's Eva.", Statement("My son is Eva", "correction")),
    ("My sister is not vegan, she is vegetarian.",
     Statement("My sister is vegetarian", "correction")),
    ("The servers are no longer in Berlin, they're in Frankfurt.",
     Statement("The servers are in Frankfurt", "correction")),
])
def test_what_someone_no_longer_is_then_what_they_are_is_a_new_value(
        sentence: str, expected: Statement) -> None:
    assert read_statement(sentence) == expected


@pytest.mark.parametrize(("said", "left"), [
    (["My son is Ana.", "My son is no longer Ana, it's Eva."], ["User's son is Eva"]),
    (["My brother is Tom.", "My brother isn't Tom, he's Sam."], ["User's brother is Sam"]),
    (["My brother is Tom.", "My brother isn't Tom, it's Sam."], ["User's brother is Sam"]),
    (["My sister is vegan.", "My sister is no longer vegan, she's vegetarian."],
     ["User's sister is vegetarian"]),
    # A withdrawal alone retires what it names, and only that.
    (["My dog is Rex.", "My dog is friendly.", "My dog is no longer Rex."],
     ["User's dog is friendly"]),
    (["My dog is Rex.", "My dog is no longer Rex, forget that."], []),
])
def test_a_name_withdrawn_for_another_keeps_the_other(
        memory: HierarchicalMemory, said: list[str], left: list[str]) -> None:
    chat(memory, *said)
    assert list(core_of(memory)) == left


@pytest.mark.parametrize("cue", ["I meant ", "I meant to say ", "No, I meant ", "Nope, "])
def test_an_answer_quotes_a_correction_once(cue: str) -> None:
    # Core holds too little for the fact to stay, so the answer quotes it from archival;
    # the sentence it was learned from says nothing more and is not quoted beside it.
    with HierarchicalMemory(None, embedder=HashingEmbedder(), core_limit=12) as tiny:
        *_, reply = chat(tiny, "I live in Lisbon.", cue + "I live in Porto.",
                         "My employer is Acme Corporation International.",
                         "My dentist is Dr Smith in the city centre.",
                         "What did I say about Porto?")
    assert "User lives in Porto" in reply
    assert reply.count("Porto") == 1, reply


@pytest.mark.parametrize(("said", "left"), [
    # Two brothers held: a correction renames the one just named, not both.
    (["My brother is Tom.", "My brother is Sam.", "No, my brother is Ben."],
     ["User's brother is Tom", "User's brother is Ben"]),
    (["My brother is Sam.", "My brother is Tom.", "I like tea.", "Sorry, my brother is Ben."],
     ["User's brother is Sam", "User likes tea", "User's brother is Ben"]),
    # Named in one message, which of them it renames nothing says: both stay.
    (["My brother is Tom and my brother is Sam.", "No, my brother is Ben."],
     ["User's brother is Tom", "User's brother is Sam", "User's brother is Ben"]),
])
def test_a_correction_renames_one_of_several(
        memory: HierarchicalMemory, said: list[str], left: list[str]) -> None:
    chat(memory, *said)
    assert list(core_of(memory)) == left

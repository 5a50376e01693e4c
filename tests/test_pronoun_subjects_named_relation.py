""""My boss is Ana. She wants the report by Friday." is of the user's boss: a relation and
the name said to be theirs ("My boss is Ana", "Ana is my boss", "my boss, Ana") are one
person. Read as two, the "she" named no one clearly and what she wants was not stored."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_after, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.pronoun_subjects import with_pronouns_named


@pytest.mark.parametrize(("said", "told"), [
    ("My boss is Ana. She wants the report by Friday.",
     "User's boss wants the report by Friday"),
    ("Ana is my boss. She wants the report by Friday.",
     "User's boss wants the report by Friday"),
    ("My wife is Maria. She works at Globex.", "User's wife works at Globex"),
])
def test_a_relation_and_its_name_are_one_person(said: str, told: str) -> None:
    assert told in core_after(said)


@pytest.mark.parametrize("before", [
    "My boss, Ana, came by.", "My boss Ana came by.", "My sister is Ana.",
])
def test_the_pronoun_is_said_as_the_relation(before: str) -> None:
    said = with_pronouns_named([before, "She is in Rome."], None)
    assert said[-1] == f"{before.split()[0]} {before.split()[1].rstrip(',')} is in Rome."


@pytest.mark.parametrize("before", [
    "My boss and Ana came by.",  # two people
    "Ana is his sister.",  # the relation is another's: which of them is unclear
])
def test_two_people_stay_two(before: str) -> None:
    assert with_pronouns_named([before, "She is in Rome."], None) == [before]


@pytest.mark.parametrize(("said", "kept"), [
    (["Ana is my sister. She is my cousin."], ["Ana is User's cousin", "Ana is User's sister"]),
    (["My sister is Ana.", "She is also my colleague."],
     ["Ana is also User's colleague", "User's sister is Ana"]),
    (["Tom is my boss. He's my neighbour."], ["Tom is User's boss", "Tom is User's neighbour"]),
    # what is no other of the user's is said of the relation, as before
    (["Ana is my sister. She is a doctor."], ["Ana is User's sister", "User's sister is a doctor"]),
    # of facts joined by "and", the one naming the relation names the pronoun too
    (["Ana is my sister and Tom is my brother. She is my colleague."],
     ["Ana is User's colleague", "Ana is User's sister", "Tom is User's brother"]),
    (["My sister is Ana and my brother is Tom. She is my neighbour."],
     ["Ana is User's neighbour", "User's brother is Tom", "User's sister is Ana"]),
])
def test_another_of_the_users_said_of_the_pronoun_is_said_of_the_name(
        said: list[str], kept: list[str]) -> None:
    assert core_after(*said) == kept


@pytest.mark.parametrize("after", ["She is my colleague.", "She is a doctor."])
def test_a_relation_given_two_names_names_neither(after: str) -> None:
    """Either sister may be "she": nothing is said of one of them, nor of "User's sister",
    which named both; who she is is asked."""
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        [reply] = chat(memory, f"Ana is my sister and Eva is my sister. {after}")
        assert sorted(core_of(memory)) == ["Ana is User's sister", "Eva is User's sister"]
    assert 'could not tell who "She" is' in reply

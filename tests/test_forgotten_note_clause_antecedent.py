"""Whom a "who" or "that" clause is about is the word before it: "I know a guy that has a
dog named Rex" gives the user no dog, as "a guy who" does not, while "My dog, who is named
Rex" names the user's dog, and "That is why I use vim", about no one, is the user's."""

from __future__ import annotations

from tiermem.memory.ops.fact_said import says
from tiermem.memory.text.others_clauses import without_others_clauses

DOG = "User has a dog named Rex"


def test_a_that_clause_about_someone_else_gives_the_user_nothing() -> None:
    assert not says("I know a guy that has a dog named Rex.", DOG)
    assert not says("I know a guy that is married to Anna.", "User is married to Anna")


def test_a_clause_about_the_facts_own_thing_still_says_it() -> None:
    assert says("My dog, who is named Rex, is a beagle.", DOG)
    assert says("I have a dog, who is named Rex.", DOG)
    assert without_others_clauses("I have a dog that is named Rex", own={"dog"}) == (
        "I have a dog that is named Rex")


def test_a_that_about_no_one_named_before_it_is_the_users() -> None:
    assert says("That is why I use vim.", "User uses vim")
    assert says("I love it, that is why I live in Berlin.", "User lives in Berlin")

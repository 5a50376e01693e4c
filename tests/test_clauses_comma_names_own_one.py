"""A comma alone joins two statements of whom of the user's a name is, as "and" does,
whether or not the name is a common first name: "Rex is my dog, Luna is my cat." was one
fact, so Luna could not be forgotten or changed on her own, where "Ana is my sister, Tom
is my brother." is two. A part that only leans on the one before is still kept with it."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.clauses import clauses_of


@pytest.mark.parametrize(("said", "after"), [
    (["Rex is my dog, Luna is my cat."], ["Luna is User's cat", "Rex is User's dog"]),
    (["Rex is my dog, Luna is my cat, Max is my son."],
     ["Luna is User's cat", "Max is User's son", "Rex is User's dog"]),
    (["Rex is my dog, Luna is my cat.", "Forget Luna."], ["Rex is User's dog"]),
])
def test_each_name_of_the_users_is_a_fact_of_its_own(said: list[str], after: list[str]) -> None:
    assert core_after(*said) == after


@pytest.mark.parametrize("fact", [
    "User likes Queen, Blur is okay too",
    "User likes Queen, Muse is second",
    "User lives in Berlin, Germany",
    "User is not Rex, Luna is User's cat",
    # a pronoun is no name said: read as the "Rex" before, it made "Rex is User's cat"
    "Rex is User's dog, she is User's cat",
    "Luna is User's cat, he is User's dog",
])
def test_a_part_that_leans_back_stays_with_the_one_before(fact: str) -> None:
    assert clauses_of(fact) == [fact]


def test_a_pronoun_after_a_comma_is_not_the_name_before_it() -> None:
    assert core_after("Rex is my dog, she is my cat.") == ["Rex is User's dog, she is User's cat"]

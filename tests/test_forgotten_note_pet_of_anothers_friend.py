"""A pet named after someone's having is theirs only when it is not with another person
between: "Tom has a friend with a cat named Rex" says the friend's cat, no pet of Tom's
("Tom has a pet named Rex"), as "I have a friend with a cat named Rex" says none of the
user's; "Tom has a cat named Rex" and "I have a cat with a red collar named Rex" still
say theirs."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says


@pytest.mark.parametrize(("text", "fact"), [
    ("Tom has a friend with a cat named Rex.", "Tom has a pet named Rex"),
    ("Tom has a neighbour with a dog named Rex.", "Tom has a pet named Rex"),
    ("I have a friend with a cat named Rex.", "User has a pet named Rex"),
    ("My sister has a friend with a cat named Rex.", "User's sister has a pet named Rex"),
])
def test_a_pet_only_with_another_person_is_not_theirs(text: str, fact: str) -> None:
    assert not says(text, fact)


@pytest.mark.parametrize(("text", "fact"), [
    ("Tom has a cat named Rex.", "Tom has a pet named Rex"),
    ("Tom has a dog named Rex.", "Tom has a pet named Rex"),
    ("I have a cat with a red collar named Rex.", "User has a pet named Rex"),
    ("I have a cat named Rex.", "User has a pet named Rex"),
])
def test_a_pet_had_is_still_theirs(text: str, fact: str) -> None:
    assert says(text, fact)

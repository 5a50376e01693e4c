"""A pet named after a statement said of the user and another each: "We both have a dog.
His name is Rex." may name the other one's dog, so it says no forgotten "User's dog is
Rex", as it says no "User has a dog named Rex"; since "we both have" was read as the
user's having, the first was noted. Named as the user's own, it still says it."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says


@pytest.mark.parametrize("fact", [
    "User's dog is Rex", "User's dog is named Rex", "User has a dog named Rex",
])
def test_a_pet_named_after_each_ones_says_none_of_the_users(fact: str) -> None:
    assert not says("We both have a dog. His name is Rex.", fact)


@pytest.mark.parametrize("text", [
    "Tom and I both have a dog named Rex.", "I have a dog. His name is Rex.",
    "We have a dog. His name is Rex.",
])
def test_a_pet_named_as_the_users_still_says_it(text: str) -> None:
    assert says(text, "User's dog is Rex")

"""A pet someone of the user's takes in is theirs, in any word for its kind: "My sister
adopted a puppy. His name is Rex." says "User's sister has a dog named Rex", as "We
adopted a puppy. His name is Rex." says the user's; the puppy is no relation of hers."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says
from tiermem.memory.text.owners import owner_of

SISTERS_DOG = "User's sister has a dog named Rex"


@pytest.mark.parametrize("text", [
    "My sister adopted a puppy. His name is Rex.",
    "My sister adopted a dog. His name is Rex.",
    "My sister rescued a puppy named Rex.",
])
def test_a_pet_the_sister_takes_in_is_hers(text: str) -> None:
    assert says(text, SISTERS_DOG)


@pytest.mark.parametrize(("text", "fact"), [
    ("My sister saw a puppy. His name is Rex.", SISTERS_DOG),
    ("My sister adopted a cat. His name is Rex.", SISTERS_DOG),
    ("My sister has a friend with a puppy. His name is Rex.", SISTERS_DOG),
    ("My sister adopted a puppy. His name is Rex.", "User has a dog named Rex"),
])
def test_a_pet_met_of_another_kind_or_of_another_is_not_hers(text: str, fact: str) -> None:
    assert not says(text, fact)


def test_the_one_taking_it_in_is_the_sister() -> None:
    own = owner_of("My sister adopted a puppy.")
    assert own is not None and own.relations == ("sister",)

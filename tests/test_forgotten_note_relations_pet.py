"""A fact of the pet of someone of the user's ("User's sister's dog is named Rex") is said
by that one's having it: "My sister adopted a dog named Rex.", "My sister has a dog named
Rex." or "My sister adopted a puppy. His name is Rex."; not by what she only saw, by a
pet of another kind, of another of the user's, or one she has not."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says

SISTERS_DOG = "User's sister's dog is named Rex"


@pytest.mark.parametrize("text", [
    "My sister adopted a dog named Rex.",
    "My sister has a dog named Rex.",
    "My sister got a dog named Rex.",
    "My sister adopted a puppy. His name is Rex.",
    "My sister rescued a dog. She named him Rex.",
    "My sister's dog is called Rex.",
])
def test_the_sister_having_a_dog_named_rex_says_her_dog(text: str) -> None:
    assert says(text, SISTERS_DOG)


def test_a_pet_of_hers_may_be_her_dog() -> None:
    assert says("My sister has a dog named Rex.", "User's sister's pet is named Rex")


@pytest.mark.parametrize("text", [
    "My sister has a cat named Rex.",
    "My brother has a dog named Rex.",
    "My sister has a friend with a dog named Rex.",
    "My sister walked a neighbour's dog named Rex.",
    "My sister adopted a dog named Max.",
    "My sister doesn't have a dog named Rex.",
    "I have a dog named Rex.",
])
def test_another_pet_or_one_not_had_is_not_her_dog(text: str) -> None:
    assert not says(text, SISTERS_DOG)

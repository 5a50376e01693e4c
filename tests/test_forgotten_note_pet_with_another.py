"""A pet said to be with someone the user has is theirs: "I have a friend with a dog. His
name is Rex." gives the user no dog named Rex, and a note naming "User has a dog named
Rex" beside it would tell the model a forgotten fact the message never said."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says

USERS_DOG = "User has a dog named Rex"


@pytest.mark.parametrize("text", [
    "I have a friend with a dog. His name is Rex.",
    "I have a neighbour with a dog. His name is Rex.",
    "I have a friend with a dog named Rex.",
])
def test_a_dog_with_someone_the_user_has_is_not_the_users(text: str) -> None:
    assert not says(text, USERS_DOG)


@pytest.mark.parametrize("text", [
    "I have a dog. His name is Rex.",
    "I have a dog with a red collar. His name is Rex.",
    "I have a friend with a dog, and I have a dog too. His name is Rex.",
])
def test_the_users_own_dog_still_says_it(text: str) -> None:
    assert says(text, USERS_DOG)

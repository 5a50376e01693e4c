"""A pet someone of the user's only meets is no pet of theirs: "My sister saw a dog named
Rex." says nothing of "User's sister's dog is named Rex", while "My sister's dog is named
Rex." does."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says
from tiermem.memory.text.owners import owner_of

SISTERS_DOG = "User's sister's dog is named Rex"


@pytest.mark.parametrize("text", [
    "My sister saw a dog named Rex.",
    "My sister met a dog named Rex.",
    "My sister walked a dog named Rex.",
])
def test_a_dog_she_meets_is_not_hers(text: str) -> None:
    assert not says(text, SISTERS_DOG)
    assert not says(text, "User's sister has a dog named Rex")
    own = owner_of(text)
    assert own is not None and own.relations == ("sister",)


@pytest.mark.parametrize(("text", "relations"), [
    ("My sister's dog is named Rex.", ("sister", "dog")),
    ("My friend Tom's dog is named Rex.", ("friend", "dog")),
    ("My son's adopted dog is named Rex.", ("son", "dog")),
])
def test_whose_pet_it_is_still_leads_to_it(text: str, relations: tuple[str, ...]) -> None:
    own = owner_of(text)
    assert own is not None and own.relations == relations


def test_her_own_dog_is_still_said() -> None:
    assert says("My sister's dog is named Rex.", SISTERS_DOG)
    assert says("My sister has a dog named Rex.", "User's sister has a dog named Rex")
    assert says("My son is called Tom.", "User's son is called Tom")

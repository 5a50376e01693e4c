"""Someone of the user's described before their relation ("my adopted son", "my older
sister") has a pet as they do without it: "My adopted son has a dog named Rex." says
"User's adopted son's dog is named Rex", as "My sister Ana has ..." says the sister's; a
pet of another of theirs, or one never had, is not."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says


@pytest.mark.parametrize(("text", "fact"), [
    ("My adopted son has a dog named Rex.", "User's adopted son's dog is named Rex"),
    ("My adopted son adopted a dog named Rex.", "User's adopted son's dog is named Rex"),
    ("My older sister got a cat named Rex.", "User's older sister's cat is named Rex"),
    ("My sister Ana has a dog named Rex.", "User's sister's dog is named Rex"),
])
def test_a_described_one_having_a_pet_says_their_pet(text: str, fact: str) -> None:
    assert says(text, fact)


@pytest.mark.parametrize(("text", "fact"), [
    ("My adopted son has a dog named Rex.", "User's dog is named Rex"),
    ("My adopted son has a cat named Rex.", "User's adopted son's dog is named Rex"),
    ("My adopted son wants a dog named Max.", "User's adopted son's dog is named Rex"),
])
def test_another_pet_or_the_users_own_is_not_theirs(text: str, fact: str) -> None:
    assert not says(text, fact)


@pytest.mark.parametrize("text", [
    "My sister never got a dog named Rex.",
    "My sister almost adopted a dog named Rex.",
    "My sister is allergic and never got a dog named Rex.",
])
def test_a_pet_never_had_is_not_theirs(text: str) -> None:
    assert not says(text, "User's sister's dog is named Rex")


def test_a_pet_still_had_is_theirs() -> None:
    assert says("My sister still has a dog named Rex.", "User's sister's dog is named Rex")

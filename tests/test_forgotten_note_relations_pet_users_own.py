"""A pet of the user's named in what someone of theirs does is no pet of that one's: "My
sister got my dog Rex a toy." says nothing of "User's sister's dog is named Rex", while
"My sister got a dog named Rex." still does."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says

SISTERS_DOG = "User's sister's dog is named Rex"


@pytest.mark.parametrize("text", [
    "My sister got my dog Rex a toy.",
    "My sister bought my dog Rex a collar.",
    "My sister adopted a cat and my dog named Rex is jealous.",
])
def test_the_users_own_dog_is_not_the_sisters(text: str) -> None:
    assert not says(text, SISTERS_DOG)


@pytest.mark.parametrize("text", [
    "My sister got a dog named Rex.",
    "My sister bought a puppy named Rex.",
])
def test_the_dog_she_takes_in_is_still_hers(text: str) -> None:
    assert says(text, SISTERS_DOG)

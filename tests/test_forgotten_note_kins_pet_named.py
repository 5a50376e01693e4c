"""A pet of someone of the user's said in a statement of its own is theirs: "My sister's
dog is named Rex." says "User's sister has a dog named Rex"; her son, her cat or a
brother's dog says nothing of it."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says


@pytest.mark.parametrize("text, said", [
    ("My sister's dog is named Rex.", True),
    ("My sister's dog is called Rex.", True),
    ("My sister's son is named Rex.", False),
    ("My sister's cat is named Rex.", False),
    ("My brother's dog is named Rex.", False),
    ("My sister's dog is named Max.", False),
    ("My sister's dog isn't named Rex.", False),
    ("My sister's dog is Rex.", True),
])
def test_her_dogs_own_statement_says_her_dog(text: str, said: bool) -> None:
    assert says(text, "User's sister has a dog named Rex") is said

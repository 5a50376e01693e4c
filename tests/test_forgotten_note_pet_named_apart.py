"""A pet said in a statement of its own names its kind: "Tom's cat is named Rex." says
"Tom has a pet named Rex", as "Tom has a cat named Rex." does, but no dog of Tom's."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says


@pytest.mark.parametrize("text, fact, said", [
    ("Tom's cat is named Rex.", "Tom has a pet named Rex", True),
    ("Tom's cat is Rex.", "Tom has a pet named Rex", True),
    ("My sister's cat is called Rex.", "User's sister has a pet named Rex", True),
    ("Tom's cat is named Rex.", "Tom has a dog named Rex", False),
    ("Tom's cat is named Max.", "Tom has a pet named Rex", False),
    ("Tom's sister is named Rex.", "Tom has a pet named Rex", False),
])
def test_a_pets_own_statement_names_its_kind(text: str, fact: str, said: bool) -> None:
    assert says(text, fact) is said

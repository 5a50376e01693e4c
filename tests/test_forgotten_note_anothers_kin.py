"""Someone named's kin is none of the user's: "Tom's son is Rex." says neither "User's son
is named Tom" nor "User's son is named Rex", while "My son is Rex." still does, as "Tom's
son is Rex and mine is Max." does of Max."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says


@pytest.mark.parametrize(("text", "fact", "said"), [
    ("Tom's son is Rex.", "User's son is named Tom", False),
    ("Tom's son is Rex.", "User's son is named Rex", False),
    ("Tom's sister is Ana.", "User's sister is named Ana", False),
    ("My son is Rex.", "User's son is named Rex", True),
    ("Ana is my sister.", "User's sister is named Ana", True),
    # The user's own said after another's kin is still the user's.
    ("Tom's son is Rex and mine is Max.", "User's son is named Max", True),
    ("Tom's son is Rex and mine is Max.", "User's son is named Rex", False),
    ("Tom's son is Rex and mine is Max.", "User's son is named Tom", False),
    ("Tom's sister is my sister too, she's Ana.", "User's sister is named Ana", True),
    ("Tom's son is Rex and my kid is Max.", "User's son is named Max", True),
    # "My" before no word for the kin goes on to no son of the user's.
    ("Tom's son plays with my dog Max.", "User's son is named Max", False),
    ("Tom's son is my age, he's Max.", "User's son is named Max", False),
])
def test_a_named_ones_kin_is_not_the_users(text: str, fact: str, said: bool) -> None:
    assert says(text, fact) is said

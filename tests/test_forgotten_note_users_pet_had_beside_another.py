"""The user's own pet said with someone else's: "Tom and I both have a dog named Rex."
says the user's dog Rex too. Their having was not seen ("I both have", "Me and Tom both
have"), so the dog named was read as one only met, and a kept message repeating the
forgotten "User's dog is Rex" went without the note."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says


@pytest.mark.parametrize(("text", "fact"), [
    ("Tom and I both have a dog named Rex.", "User's dog is Rex"),
    ("Tom and I both have a dog named Rex.", "User has a dog named Rex"),
    ("Me and Tom both have a dog named Rex.", "User's dog is Rex"),
    ("Tom and I met. We both have a dog named Rex.", "User's dog is Rex"),
])
def test_the_users_own_pet_beside_another_says_it(text: str, fact: str) -> None:
    assert says(text, fact)


@pytest.mark.parametrize(("text", "fact"), [
    ("Tom saw a dog named Rex.", "User's dog is Rex"),
    ("I met Tom and saw a cat named Rex.", "User's cat is Rex"),
    ("I think Tom and Ana have a dog named Rex.", "User's dog is Rex"),
    ("I met Tom and have a cat named Rex.", "Tom has a pet named Rex"),
    ("I met Tom and have a cat named Rex.", "User is called Tom"),
])
def test_a_pet_of_another_or_met_still_says_nothing(text: str, fact: str) -> None:
    assert not says(text, fact)

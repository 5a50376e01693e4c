"""The user's own name is said in either word for naming: "I am called Tom." says "User
is named Tom"; a pet of the user's given that name says no name of the user's, nor a
word naming a pet ("Tom saw a cat named Rex.") a name the user goes by."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says


@pytest.mark.parametrize(("text", "fact", "said"), [
    ("I am called Tom.", "User is named Tom", True),
    ("I'm named Tom.", "User is called Tom", True),
    ("My name is Tom.", "User is called Tom", True),
    ("Mine's a kitten named Tom.", "User is called Tom", False),
    ("Everyone I know has a cat. Mine's a kitten named Tom.", "User is Tom", False),
    ("I am called Tom.", "User's son is named Tom", False),
])
def test_the_users_name_in_either_word_and_no_pets(text: str, fact: str, said: bool) -> None:
    assert says(text, fact) is said


@pytest.mark.parametrize(("text", "fact", "said"), [
    ("Tom saw a cat named Rex.", "User is called Tom", False),
    ("Tom saw a cat named Rex.", "User is named Tom", False),
    ("I met Tom and have a cat named Rex.", "User is called Tom", False),
    ("There is a dog named Rex at Tom's place.", "User is called Tom", False),
    ("I'm named Tom and have a cat named Rex.", "User is called Tom", True),
    ("My name is Tom and my cat is named Rex.", "User is called Tom", True),
])
def test_a_word_naming_a_pet_names_no_user(text: str, fact: str, said: bool) -> None:
    assert says(text, fact) is said

"""A dog the user met or walked for someone else is not the user's: "I saw a dog. His
name is Rex." and "I walked a neighbour's dog named Rex." say nothing of "User has a dog
named Rex", while "I have a dog. His name is Rex." does, as "We adopted a puppy. His
name is Rex." does, a puppy being a dog (not "I have a neighbour with a puppy."); and
"I have a cat that is named Rex." names the user's pet Rex, the clause being the cat's."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says
from tiermem.memory.text.mine import kinds_had, kinds_met, kinds_owned

DOG = "User has a dog named Rex"


@pytest.mark.parametrize("text", [
    "I saw a dog. His name is Rex.",
    "I saw a puppy. His name is Rex.",
    "I walked a neighbour's dog named Rex.",
    "I walked my neighbour's dog named Rex.",
    "I walked my neighbour's dog. His name is Rex.",
    "I have a neighbour with a puppy. His name is Rex.",
    "I have a photo of a puppy. His name is Rex.",
    "I have a friend and she got a puppy. His name is Rex.",
    "I got a call about a puppy. His name is Rex.",
])
def test_a_dog_met_is_not_the_users(text: str) -> None:
    assert not says(text, DOG)


@pytest.mark.parametrize("text", [
    "I have a dog. His name is Rex.",
    "We have a dog and a cat. The dog is Rex.",
    "Everyone has a dog, mine is Rex.",
    "I saw a dog and I have a dog named Rex.",
    "We adopted a puppy. His name is Rex.",
    "I have a puppy. His name is Rex.",
])
def test_a_dog_the_user_has_still_says_it(text: str) -> None:
    assert says(text, DOG)


def test_a_cat_that_is_named_rex_is_the_users_pet() -> None:
    assert says("I have a cat that is named Rex.", "User has a pet named Rex")
    assert not says("I saw a cat that is named Rex.", "User has a pet named Rex")


def test_what_is_met_and_what_is_owned() -> None:
    assert kinds_met("I saw a dog.", {"dog"}) == {"dog"}
    assert kinds_met("I have a dog.", {"dog"}) == set()
    assert kinds_met("The dog is Rex.", {"dog"}) == set()
    assert kinds_owned("I walked my neighbour's dog named Rex") == {}
    assert kinds_had("We adopted a puppy.", {"dog"}) == {"dog"}
    assert kinds_had("I saw a puppy.", {"dog"}) == set()
    assert kinds_had("I walked my neighbour's puppy.", {"dog"}) == set()
    assert kinds_had("We adopted a cute little puppy.", {"dog"}) == {"dog"}
    assert kinds_had("I have two cats and a puppy.", {"dog"}) == {"dog"}
    assert kinds_had("I have a neighbour with a puppy.", {"dog"}) == set()
    assert kinds_had("My neighbour has a puppy.", {"dog"}) == set()

"""A pet of the fact's own kind named in passing is not the user's: "I saw a dog named
Rex." says nothing of "User has a dog named Rex", while "I have a dog named Rex." and "I
have a dog that is named Rex." do, and "I saw a dog that is named Rex." does not."""

from __future__ import annotations

from tiermem.memory.ops.fact_said import says
from tiermem.memory.text.mine import kinds_named, kinds_owned

DOG = "User has a dog named Rex"


def test_a_dog_named_in_passing_is_not_the_users_dog() -> None:
    assert not says("I saw a dog named Rex.", DOG)
    assert not says("I saw a dog that is named Rex.", DOG)


def test_a_dog_the_user_has_still_says_it() -> None:
    assert says("I have a dog named Rex.", DOG)
    assert says("I have a dog that is named Rex.", DOG)
    assert says("No one except me has a dog named Rex.", DOG)
    assert says("My dog is called Rex.", DOG)


def test_a_name_given_in_a_clause_is_the_kinds() -> None:
    assert kinds_named("a dog that is named Rex") == {"rex": "dog"}
    assert kinds_owned("I saw a dog that is named Rex") == {}


def test_another_persons_dog_is_still_said_of_them() -> None:
    assert says("Tom has a dog named Rex.", "Tom has a dog named Rex")

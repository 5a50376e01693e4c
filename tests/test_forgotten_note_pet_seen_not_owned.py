"""A pet of some kind named in passing is not the user's pet: "I saw a cat named Rex." and
"I know a guy with a cat named Rex." say nothing of "User has a pet named Rex", while "I
have a cat named Rex." does."""

from __future__ import annotations

from tiermem.memory.ops.fact_said import says
from tiermem.memory.text.mine import kinds_owned

PET = "User has a pet named Rex"


def test_a_kind_named_in_passing_names_no_pet_of_the_users() -> None:
    assert not says("I saw a cat named Rex.", PET)
    assert not says("I know a guy with a cat named Rex.", PET)
    assert not says("I fed a stray cat named Rex.", PET)
    assert kinds_owned("I saw a cat named Rex") == {}


def test_a_kind_the_user_has_still_names_the_pet() -> None:
    assert says("I have a dog named Max and a cat named Rex.", PET)
    assert says("We adopted a kitten named Rex.", PET)
    assert kinds_owned("My cat is called Rex") == {"rex": "cat"}

"""A pet named with its kind is the user's pet of that name: "Mine is a cat named Rex." and
"I have a cat named Rex." say "User has a pet named Rex", a cat being a pet."""

from __future__ import annotations

from tiermem.memory.ops.fact_said import says

PET = "User has a pet named Rex"


def test_a_kind_of_pet_named_so_says_the_pet() -> None:
    assert says("Mine is a cat named Rex.", PET)
    assert says("I have a cat named Rex.", PET)
    assert says("Mine is a puppy named Rex.", "User has a dog named Rex")


def test_another_kind_or_someone_elses_pet_says_none() -> None:
    assert not says("I like dogs. Mine is a cat named Rex.", "User has a dog named Rex")
    assert not says("Anna has a cat named Rex.", PET)
    assert not says("My son has a cat named Rex.", PET)
    assert not says("I want a cat named Rex.", PET)

""""Everyone" opening a sentence is others the user is not one of, not someone named
Everyone: "Everyone has a dog, mine is Rex." says the user's dog is Rex, as "Everyone I
know has a dog, mine is Rex." does. "Hers", "Theirs" and "Yours" opening one stay someone
else's: no dog of the user's."""

from __future__ import annotations

from tiermem.memory.ops.fact_said import says

DOG = "User has a dog named Rex"

STATED = [
    ("Everyone has a dog, mine is Rex.", DOG),
    ("Everyone has a dog, mine is named Rex.", "User's dog is named Rex"),
    ("Everybody has a dog, mine is a puppy named Rex.", DOG),
]
NOT_STATED = [
    ("Everyone has a dog named Rex.", DOG),
    ("Everyone has a dog named Max, mine is Rex.", "User has a dog named Max"),
    ("Everyone has a dog, mine is a cat.", "User has a dog"),
    ("Everyone uses vim.", "User uses vim"),
    ("Everyone has a dog, mine is Rex.", "User's sister has a dog named Rex"),
    ("My sister Anna has a dog. Hers is named Rex.", DOG),
    ("Anna has a dog. Theirs is named Rex.", DOG),
    ("Tom has a dog. Yours is named Rex.", DOG),
]


def test_the_users_one_of_what_everyone_has_is_stated() -> None:
    assert [said for said, fact in STATED if not says(said, fact)] == []


def test_what_everyone_or_another_has_is_not_the_users() -> None:
    assert [said for said, fact in NOT_STATED if says(said, fact)] == []

"""A pet someone of the user's gets for another is not theirs: "My sister got Tom a dog
named Rex.", "My sister bought her son a dog named Rex." and "My sister got a dog named
Rex for her son.", "... for Mom." or "... for Tom's birthday." say no "User's sister's
dog is named Rex", while "My sister got a dog named Rex.", "... for her birthday." or
"... for Christmas." still does, as "I got a dog named Rex for me." or "... for Mom and
me." says the user's."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says

SISTERS_DOG = "User's sister's dog is named Rex"


@pytest.mark.parametrize(("text", "fact"), [
    ("My sister got Tom a dog named Rex.", SISTERS_DOG),
    ("My sister bought her son a dog named Rex.", SISTERS_DOG),
    ("My sister got her a dog named Rex.", SISTERS_DOG),
    ("My sister got a dog named Rex for her son.", SISTERS_DOG),
    ("My sister got a dog named Rex for her son.", "User's sister has a dog named Rex"),
    ("My sister bought a puppy for Tom. His name is Rex.", SISTERS_DOG),
    ("I got Tom a puppy. His name is Rex.", "User has a dog named Rex"),
    ("My sister got a dog named Rex for me.", "User's sister has a dog named Rex"),
    ("I got a dog named Rex for Grandma.", "User has a dog named Rex"),
    ("I got a puppy named Rex for Mom.", "User has a dog named Rex"),
    ("My sister got a dog named Rex for Dad.", SISTERS_DOG),
    ("My sister got a dog named Rex for Tom's birthday.", SISTERS_DOG),
    ("I got a dog named Rex for Anna's birthday.", "User has a dog named Rex"),
    ("I got a dog named Rex for Mom's birthday.", "User has a dog named Rex"),
    ("My sister got a dog named Rex for Grandma's birthday.", SISTERS_DOG),
    ("My sister got a dog named Rex for Tom and me.", "User's sister has a dog named Rex"),
])
def test_a_pet_given_to_another_is_not_the_givers(text: str, fact: str) -> None:
    assert not says(text, fact)


@pytest.mark.parametrize(("text", "fact"), [
    ("My sister got a dog named Rex.", SISTERS_DOG),
    ("My sister got herself a dog named Rex.", SISTERS_DOG),
    ("My sister got a dog named Rex for her birthday.", SISTERS_DOG),
    ("We adopted a puppy. His name is Rex.", "User has a dog named Rex"),
    ("My sister got a dog named Rex for Christmas.", SISTERS_DOG),
    ("My sister got a dog named Rex for Mother's Day.", SISTERS_DOG),
    ("My sister got a dog named Rex for Valentine's Day.", SISTERS_DOG),
    ("I got a dog named Rex for Mothers Day.", "User has a dog named Rex"),
    ("I got a dog named Rex for Fathers Day.", "User has a dog named Rex"),
    ("My sister got a dog named Rex for Kids Day.", SISTERS_DOG),
    # Got for someone's sake is a reason, no gift to them.
    ("I got a dog named Rex for Mom's sake.", "User has a dog named Rex"),
    ("I got a dog named Rex for Tom's sake.", "User has a dog named Rex"),
    ("My sister got a dog named Rex for Dad's sake.", SISTERS_DOG),
    ("I got a dog named Rex for Christmas.", "User has a dog named Rex"),
    ("I adopted a puppy named Rex for Christmas.", "User has a dog named Rex"),
    ("I got a dog named Rex for May.", "User has a dog named Rex"),
    ("I got a dog named Rex for me.", "User has a dog named Rex"),
    ("We got a dog named Rex for us.", "User has a dog named Rex"),
    # Got for someone along with the speaker, who has it too.
    ("I got a dog named Rex for Mom and me.", "User has a dog named Rex"),
    ("I got a dog named Rex for Tom and me.", "User has a dog named Rex"),
    ("I got a dog named Rex for my son and me.", "User has a dog named Rex"),
])
def test_a_pet_taken_in_is_still_theirs(text: str, fact: str) -> None:
    assert says(text, fact)

"""A pet named after a statement said of the user and another each: "We both have a dog.
His name is Rex." may name the other one's dog or the user's, and a message that may show
a forgotten fact is noted: a note missed tells the model nothing of what the user had it
forget, one too many only that it may be there. So it says "User's dog is Rex" and "User
has a dog named Rex" alike, as "My sister and I both have a dog. Her name is Bella." and
"We both have a son. His name is Tom." say theirs; a text read as no dog of the user's
left the kept message without the note."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says

REX, NAMED_REX = "User's dog is Rex", "User has a dog named Rex"


@pytest.mark.parametrize(("text", "fact", "said"), [
    # Had by each, one of them the user: the one named may be the user's.
    ("We both have a dog. His name is Rex.", REX, True),
    ("We both have a dog. His name is Rex.", NAMED_REX, True),
    ("We both have a dog. It is called Rex.", NAMED_REX, True),
    ("We both have a cat. Her name is Luna.", "User's cat is Luna", True),
    ("We both have a cat. Her name is Luna.", "User has a cat named Luna", True),
    ("My sister and I both have a dog. Her name is Bella.", "User's dog is Bella", True),
    ("We both have a son. His name is Tom.", "User has a son named Tom", True),
    # The user's own, said so.
    ("Tom and I both have a dog named Rex.", REX, True),
    ("We have a dog. His name is Rex.", REX, True),
    # One none of them has is no one's the user had.
    ("We both saw a dog. His name is Rex.", NAMED_REX, False),
    ("Tom has a dog. His name is Rex.", REX, False),
])
def test_a_pet_named_after_each_ones_may_be_the_users(text: str, fact: str,
                                                      said: bool) -> None:
    assert says(text, fact) is said

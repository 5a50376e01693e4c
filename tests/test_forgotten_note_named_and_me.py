"""Someone named before "and I" is one subject with the user, as after "Me and": "Tom and
I both have a dog named Rex." says Tom's dog, and the name beside the user is never the
user's own, nor what the user says is theirs alone: "Tom and I walked my dog Rex." is no
dog of Tom's, while "..., mine is named Rex and his is named Max." still names Tom's Max."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says


@pytest.mark.parametrize("text, fact, said", [
    ("Tom and I both have a dog named Rex.", "Tom has a dog named Rex", True),
    ("Tom and I use vim.", "Tom uses vim", True),
    ("Tom and I use vim.", "User uses vim", True),
    ("Tom and I don't use vim.", "Tom uses vim", False),
    ("Tom and I both have a dog named Rex.", "User is called Tom", False),
    ("Me and Tom both have a dog named Rex.", "User is called Tom", False),
    ("Me and Tom think Anna uses vim.", "User is Tom", False),
    ("Tom and I walked my dog Rex.", "Tom has a dog named Rex", False),
    ("Tom and I walked my dog Rex.", "User has a dog named Rex", True),
    ("Tom and I have different dogs, mine is named Rex.", "Tom has a dog named Rex", False),
    ("Tom and I have different dogs, mine is named Rex.", "Tom has a dog", True),
    ("Tom and I walked my sister's dog Rex.", "Tom has a dog named Rex", False),
    ("Tom and I have dogs, mine is named Rex and his is named Max.",
     "Tom has a dog named Max", True),
    ("Tom and I have dogs, mine is named Rex and his is named Max.",
     "Tom has a dog named Rex", False),
    ("Tom and I have dogs, mine is Rex and his is Max.", "Tom has a dog named Max", True),
])
def test_a_name_beside_the_user_is_one_subject_with_them(text: str, fact: str,
                                                          said: bool) -> None:
    assert says(text, fact) is said

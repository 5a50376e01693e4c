"""A name the message denies is no name it says: "My name isn't Tom." says no "User is
named Tom", nor "My dog isn't named Rex." the user's dog Rex, even where the fact's
other words come before the denial; a name said after another denied still counts, in
the statement after it too: "My dog isn't Max; it's Rex." (the clause denying Max was read
as the dog named otherwise, and "it's Rex" as pointing back to nothing)."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says


@pytest.mark.parametrize(("text", "fact", "said"), [
    ("My name isn't Tom.", "User is named Tom", False),
    ("My name is not Tom.", "User is named Tom", False),
    ("My dog isn't named Rex.", "User has a dog named Rex", False),
    ("Tom's cat isn't named Rex.", "Tom has a cat named Rex", False),
    ("Tom's cat wasn't called Rex.", "Tom's cat is named Rex", False),
    ("My name is Tom.", "User is named Tom", True),
    ("My name isn't Tom, it's Thomas.", "User is named Thomas", True),
    ("My dog isn't called Max, he is called Rex.", "User has a dog named Rex", True),
    ("My dog isn't Max; it's Rex.", "User has a dog named Rex", True),
    ("My dog isn't Max; it's Rex.", "User's dog is Rex", True),
    ("My dog isn't Max. It is called Rex.", "User has a dog named Rex", True),
    ("My dog isn't Max. He is Rex.", "User has a dog named Rex", True),
    ("I have a dog. It's Rex.", "User's dog is Rex", True),
    ("My dog isn't Max; it's Rex.", "User has a dog named Max", False),
    ("My dog isn't Rex; it's Max.", "User has a dog named Rex", False),
    # "It" said to be no name, or said after a dog met, names no dog of the user's.
    ("I have a dog. It's Rex's bowl.", "User has a dog named Rex", False),
    ("I saw a dog. It's Rex.", "User has a dog named Rex", False),
    ("Tom has a dog. It's Rex.", "User's dog is Rex", False),
])
def test_a_denied_name_is_not_said(text: str, fact: str, said: bool) -> None:
    assert says(text, fact) is said

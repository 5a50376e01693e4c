"""What someone of the user's only wishes for is not theirs: "My sister wants a dog named
Rex." says nothing of "User's sister has a dog named Rex", as "I want a dog named Rex."
says nothing of "User has a dog named Rex"; "My sister has a dog named Rex." still does."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says


@pytest.mark.parametrize(("text", "fact"), [
    ("My sister wants a dog named Rex.", "User's sister has a dog named Rex"),
    ("My sister would love a dog named Rex.", "User's sister has a dog named Rex"),
    ("My sister wants to live in Berlin.", "User's sister lives in Berlin"),
])
def test_a_wish_of_theirs_is_not_had(text: str, fact: str) -> None:
    assert not says(text, fact)


@pytest.mark.parametrize(("text", "fact"), [
    ("My sister has a dog named Rex.", "User's sister has a dog named Rex"),
    ("My sister lives in Berlin.", "User's sister lives in Berlin"),
    ("My mom has dementia.", "User's mother has dementia"),
])
def test_what_they_have_is_still_said(text: str, fact: str) -> None:
    assert says(text, fact)

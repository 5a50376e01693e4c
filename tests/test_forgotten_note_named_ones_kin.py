"""Someone named only as whose another is says nothing of them: "There is a dog named Rex
at Tom's sister's place." and "Tom's sister has a dog named Rex." say no "Tom has a dog
named Rex", where "There is a dog named Rex at Tom's place." still does."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says

TOMS_DOG = "Tom has a dog named Rex"


@pytest.mark.parametrize("text", [
    "There is a dog named Rex at Tom's sister's place.",
    "Tom's sister has a dog named Rex.",
    "There is a dog named Rex at Tom's brother's flat.",
])
def test_a_dog_of_their_kin_is_not_theirs(text: str) -> None:
    assert not says(text, TOMS_DOG)


@pytest.mark.parametrize(("text", "fact"), [
    ("There is a dog named Rex at Tom's place.", TOMS_DOG),
    ("Tom's dog is named Rex.", TOMS_DOG),
    ("Tom's sister has a dog named Rex.", "Tom's sister has a dog named Rex"),
    ("Tom's sister has a dog named Rex.", "Tom's sister's dog is named Rex"),
])
def test_their_own_or_their_kins_fact_is_still_said(text: str, fact: str) -> None:
    assert says(text, fact)

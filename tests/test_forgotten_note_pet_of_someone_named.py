"""A pet someone named is said to have is one of any kind their fact's word may be: "Tom
has a cat named Rex." says "Tom has a pet named Rex", as "I have a cat named Rex." says
the user's; one only seen or walked is none of theirs."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says

TOMS_PET = "Tom has a pet named Rex"


@pytest.mark.parametrize("text", [
    "Tom has a cat named Rex.",
    "Tom has a dog named Rex.",
    "I met Tom. He has a cat named Rex.",
])
def test_a_pet_tom_has_of_any_kind_is_his_pet(text: str) -> None:
    assert says(text, TOMS_PET)


@pytest.mark.parametrize(("text", "fact"), [
    ("Tom saw a cat named Rex.", TOMS_PET),
    ("Tom walked a neighbour's cat named Rex.", TOMS_PET),
    ("I met Tom and have a cat named Rex.", TOMS_PET),
    ("Tom has a cat named Rex.", "Tom has a dog named Rex"),
])
def test_a_pet_met_or_of_another_kind_is_not_his_pet(text: str, fact: str) -> None:
    assert not says(text, fact)

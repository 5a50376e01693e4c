"""A statement of no one that names the one a fact is of, in the possessive, is still of
them: "There is a dog named Rex at Tom's place." says "Tom has a dog named Rex", as "...
at his place" after "I met Tom." does; "... at Anna's place" does not."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says

TOMS_DOG = "Tom has a dog named Rex"


@pytest.mark.parametrize("text", [
    "There is a dog named Rex at Tom's place.",
    "There’s a dog named Rex at Tom’s house.",
    "I met Tom. There is a dog named Rex at his place.",
])
def test_naming_tom_in_the_possessive_is_of_tom(text: str) -> None:
    assert says(text, TOMS_DOG)


@pytest.mark.parametrize("text", [
    "There is a dog named Rex at Anna's place.",
    "I met Tom. There is a dog named Rex.",
])
def test_another_or_no_one_named_is_not_tom(text: str) -> None:
    assert not says(text, TOMS_DOG)

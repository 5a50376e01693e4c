"""A home the user says they lived in beside another thing they did there is the place a
later move left: "I studied and lived in Berlin, then moved to Munich" says "User moved
from Berlin", as "I lived in Berlin, then moved to Munich" does; a place only studied in,
or another's home, is none the move left."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says
from tiermem.memory.text.moves import lived_before_moving


@pytest.mark.parametrize("text", [
    "I studied and lived in Berlin, then moved to Munich",
    "I worked and lived in Berlin, then moved to Munich.",
])
def test_a_home_lived_in_beside_other_things_is_the_place_left(text: str) -> None:
    assert says(text, "User moved from Berlin")
    assert says(text, "User moved from Berlin to Munich")
    assert lived_before_moving(text) == {"berlin"}


@pytest.mark.parametrize("text", [
    "I studied in Berlin, then moved to Munich.",
    "Anna studied and lived in Berlin, then I moved to Munich.",
])
def test_a_place_only_studied_in_or_anothers_home_is_not_left(text: str) -> None:
    assert not says(text, "User moved from Berlin")

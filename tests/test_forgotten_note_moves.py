"""A move that names no place it left left only a place the message says the user lived
in before it: a place only visited, worked in or born in is no home the move left, and a
note naming "User moved from Berlin to Munich" beside such a message tells a fact it
never said."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says
from tiermem.memory.text.moves import lived_before_moving

MOVED = "User moved from Berlin to Munich"


@pytest.mark.parametrize("said", [
    "I visited Berlin, then moved to Munich.",
    "I loved Berlin, then moved to Munich.",
    "I worked in Berlin, then moved to Munich.",
    "I was born in Berlin, then moved to Munich.",
    "I hated Berlin, but moved to Munich.",
])
def test_a_place_not_lived_in_before_the_move_is_not_the_place_it_left(said: str) -> None:
    assert not says(said, MOVED)


@pytest.mark.parametrize("said", [
    "I lived in Berlin, then moved to Munich.",
    "I grew up in Berlin but moved to Munich.",
    "I had been living in Berlin, and then moved to Munich.",
    "I lived with my parents in Berlin, then moved to Munich.",
    "I moved from Berlin to Munich.",
])
def test_a_place_lived_in_before_the_move_is_the_place_it_left(said: str) -> None:
    assert says(said, MOVED)


def test_only_a_place_lived_in_before_the_move_is_read() -> None:
    assert lived_before_moving("I lived in Berlin, then moved to Munich.") == {"berlin"}
    assert lived_before_moving("I visited Berlin, then moved to Munich.") == set()
    # After the move, a place lived in is where it went, not one it left.
    assert lived_before_moving("I moved to Munich and lived in Berlin.") == set()

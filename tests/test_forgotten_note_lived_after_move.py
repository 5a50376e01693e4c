"""A home said after a move as lived in before it is the place the move left: "I moved to
Munich after living in Berlin." says "User moved from Berlin to Munich", and it moved to
no Berlin."""

from __future__ import annotations

from tiermem.memory.ops.fact_said import says
from tiermem.memory.text.moves import lived_before_moving, places_reached

MOVE = "User moved from Berlin to Munich"
TEXT = "I moved to Munich after living in Berlin."


def test_a_home_lived_in_before_the_move_is_the_place_left() -> None:
    assert says(TEXT, MOVE)
    assert says(TEXT, "User moved to Munich")
    assert lived_before_moving(TEXT) == {"berlin"}
    assert places_reached(TEXT) == {"munich"}


def test_it_is_no_place_reached_nor_one_merely_visited() -> None:
    assert not says(TEXT, "User moved to Berlin")
    assert not says("I moved to Munich after visiting Berlin.", MOVE)
    assert not says("I moved to Munich after living in Hamburg.", MOVE)
    assert not says("Anna moved to Munich after living in Berlin.", MOVE)

"""Living somewhere says no move away from it: "I live in Berlin.", "I lived in Berlin."
and "I used to live in Berlin." share "residence" with "User moved from Berlin" yet never
say the user left, while a move said after the place lived in does."""

from __future__ import annotations

from tiermem.memory.ops.fact_said import says

LEFT = "User moved from Berlin"


def test_living_in_a_place_says_no_move_from_it() -> None:
    assert not says("I live in Berlin.", LEFT)
    assert not says("I lived in Berlin.", LEFT)
    assert not says("I used to live in Berlin.", LEFT)
    assert not says("I have lived in Berlin for years.", LEFT)


def test_living_there_before_is_still_said_as_lived() -> None:
    assert says("I used to live in Berlin.", "User lived in Berlin")
    assert says("I live in Berlin.", "User lives in Berlin")


def test_a_move_after_the_place_lived_in_still_left_it() -> None:
    assert says("I moved from Berlin.", LEFT)
    assert says("I lived in Berlin, then moved to Munich.", LEFT)
    assert says("I lived in Berlin. Then I moved to Munich.", LEFT)
    assert not says("I lived in New Berlin. Then I moved to Munich.", LEFT)
    assert not says("Anna lived in Berlin. Then I moved to Munich.", LEFT)


def test_a_home_grown_up_in_is_left_a_place_studied_in_is_none() -> None:
    move = "User moved from Berlin to Munich"
    assert says("I grew up in Berlin. Then I moved to Munich.", move)
    # Studying somewhere, as working there, says no home: the user may have lived elsewhere.
    assert not says("I studied in Berlin, then moved to Munich", move)
    assert not says("I studied in Berlin. Then I moved to Munich.", move)

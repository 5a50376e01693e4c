"""A place the user says they left and then moved on from is the place a move left: "I
left Berlin and moved to Munich." says "User moved from Berlin to Munich" and "User
moved from Berlin", as "... lived in Berlin for years before moving to Munich." does,
where "left" alone still gives the place up ("I left Berlin." says no move), and a move
it never made ("I never left Berlin ...") or another's leaving or living there before
moving ("... Tom lived in Hamburg before moving to Munich.") says none, nor does leaving when
someone else moved ("I left Berlin when my parents moved to Munich." still gives Berlin
up and says no home in Munich)."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says
from tiermem.memory.text.moves import lived_before_moving

MOVE = "User moved from Berlin to Munich"
TEXT = "I left Berlin and moved to Munich."


@pytest.mark.parametrize("fact", [MOVE, "User moved to Munich"])
def test_a_place_left_before_a_move_is_the_place_the_move_left(fact: str) -> None:
    assert says(TEXT, fact)


def test_the_place_left_is_a_home_the_move_left() -> None:
    assert lived_before_moving(TEXT) == {"berlin"}
    assert lived_before_moving("I left Berlin.") == set()


@pytest.mark.parametrize(("text", "fact"), [
    (TEXT, "User moved to Berlin"),
    (TEXT, "User lives in Berlin"),
    ("I left Berlin.", MOVE),
    ("I never left Berlin and moved to Munich.", MOVE),
    ("Anna left Berlin and I moved to Munich.", MOVE),
    ("I left Munich and moved to Berlin.", MOVE),
    ("I left Acme and moved to Munich.", "User works at Acme"),
    ("I lived in Berlin. Tom lived in Hamburg before moving to Munich.", "User moved from Berlin"),
    ("I lived in Berlin, and Tom lived in Hamburg before moving to Munich.",
     "User moved from Berlin"),
    ("I lived in Berlin. My parents lived in Hamburg before moving to Munich.",
     "User moved from Berlin"),
    ("I lived in Berlin; she lived in Hamburg before moving to Munich.",
     "User moved from Berlin"),
    ("I lived in Berlin, but my parents stayed in Hamburg before moving to Munich.",
     "User moved from Berlin"),
])
def test_leaving_alone_or_another_way_round_says_no_such_move(text: str, fact: str) -> None:
    assert not says(text, fact)


@pytest.mark.parametrize("text", [
    "I left Berlin when my parents moved to Munich.",
    "I left Berlin after Anna moved to Munich.",
    "I left Berlin because Tom moved to Munich.",
])
@pytest.mark.parametrize("fact", ["User lives in Berlin", "User lives in Munich", MOVE])
def test_leaving_when_someone_else_moved_is_no_move_of_the_users(text: str,
                                                                  fact: str) -> None:
    assert not says(text, fact)


def test_leaving_when_the_user_moved_is_their_move() -> None:
    assert says("I left Berlin when I moved to Munich.", MOVE)
    assert says("I left Berlin and then finally moved to Munich.", MOVE)


@pytest.mark.parametrize("text", [
    TEXT,
    "I left Berlin and then finally moved to Munich.",
    "I grew up in Berlin but moved to Munich.",
    "I worked and lived in Berlin for years before moving to Munich.",
    "I lived in Berlin as a student before moving to Munich.",
    "I lived with my grandparents in Berlin as a kid before moving to Munich.",
    "I lived in Berlin where Tom worked before moving to Munich.",
])
def test_a_home_left_before_a_move_says_the_move_from_it_alone(text: str) -> None:
    assert says(text, "User moved from Berlin")
    assert not says(text, "User moved from Munich")

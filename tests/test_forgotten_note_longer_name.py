"""A name of a forgotten fact said only inside a longer name is another place: "I live in
New York" names no York, and a note naming "User lives in York" beside it would tell a
fact the message never said."""

from __future__ import annotations

from tiermem.memory.ops.fact_said import says
from tiermem.memory.text.longer_names import inside_longer_names

MOVE = "User moved from Berlin to Munich"


def test_a_place_inside_a_longer_name_is_not_the_facts() -> None:
    assert not says("I live in New York", "User lives in York")
    assert not says("I lived in New Berlin, then moved to Munich.", MOVE)
    assert not says("I work in Fort Worth.", "User works in Worth")
    assert inside_longer_names("I live in New York", {"york"}) == {"york"}


def test_the_name_said_alone_or_as_the_fact_names_it_is_said() -> None:
    assert says("I lived in Berlin, then moved to Munich.", MOVE)
    assert says("I live in New York", "User lives in New York")
    assert says("In Berlin, I live alone near the zoo. I live in Berlin.", "User lives in Berlin")
    assert says("I live in New Berlin, not far from Berlin. I live in Berlin now.",
                "User lives in Berlin")
    assert inside_longer_names("In Berlin, I live", {"berlin"}) == set()
    assert inside_longer_names("New York is home", {"new", "york"}) == set()

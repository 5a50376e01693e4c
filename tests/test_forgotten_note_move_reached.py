"""Of a fact naming where a move went ("User moved to Berlin"), a place the message says
only before the move, as lived in, is not where it went: "I lived in Berlin, then moved
to Munich." moved to no Berlin, and a note naming that fact beside it would tell a move
the message never said."""

from __future__ import annotations

from tiermem.memory.ops.fact_said import says

TO_BERLIN = "User moved to Berlin"


def test_a_place_lived_in_before_the_move_is_not_where_it_went() -> None:
    assert not says("I lived in Berlin, then moved to Munich.", TO_BERLIN)
    assert not says("I grew up in Berlin but moved to Munich.", TO_BERLIN)


def test_where_the_move_went_is_still_said_however_it_is_worded() -> None:
    went = ["I moved from Munich, where I lived, to Berlin.", "I moved to Berlin from Munich.",
            "Berlin is great, I moved there last year.", "I moved into a flat in Berlin.",
            "I moved to Munich and then to Berlin."]
    assert [said for said in went if not says(said, TO_BERLIN)] == []

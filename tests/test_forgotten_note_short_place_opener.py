"""A name opened by a short form with a stop is as long as one written out: "I live in St.
Petersburg." names no Petersburg, as "I live in Saint Petersburg." does not, and a note
naming "User lives in Petersburg" beside it would tell a home the message never said."""

from __future__ import annotations

from tiermem.memory.ops.fact_said import says
from tiermem.memory.text.longer_names import inside_longer_names


def test_a_name_after_a_short_opener_is_part_of_the_longer_name() -> None:
    assert not says("I live in St. Petersburg.", "User lives in Petersburg")
    assert not says("I moved to Ft. Lauderdale.", "User moved to Lauderdale")
    assert inside_longer_names("I live in Mt. Vernon", {"vernon"}) == {"vernon"}


def test_the_whole_name_and_a_name_after_a_sentence_still_say_it() -> None:
    assert says("I live in St. Petersburg.", "User lives in St. Petersburg")
    assert says("I live in Petersburg.", "User lives in Petersburg")
    assert inside_longer_names("I met Anna. Petersburg is home", {"petersburg"}) == set()

""""I used to work at Globex" (or "I worked at Globex, now I don't") ends "User works at
Globex": read as a plain statement it was quoted beside the job it says is over. What it
tells of the past is kept; what it says of no fact held changes nothing."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

#: What was held, what the user said of the past, and the core after it.
_SAID_OF_THE_PAST = [
    ("I work at Globex.", "I used to work at Globex.", ["User: I used to work at Globex"]),
    ("I work at Globex.", "I worked at Globex, now I don't.", ["User: I worked at Globex"]),
    ("I work at Globex.", "I work at Globex, now I don't.", []),
    ("I live in Lisbon.", "I used to live in Lisbon.", ["User: I used to live in Lisbon"]),
    ("I am vegan.", "I'm vegan, now I'm not.", []),
    ("I am vegan.", "I was vegan, but not anymore.", ["User was vegan"]),
    # of nothing held: the past is kept beside what holds
    ("I live in Lisbon.", "I used to live in Porto.",
     ["User lives in Lisbon", "User: I used to live in Porto"]),
    ("My wife works at Globex.", "I used to work at Globex.",
     ["User's wife works at Globex", "User: I used to work at Globex"]),

]


@pytest.mark.parametrize(("held", "said", "now"), _SAID_OF_THE_PAST)
def test_what_used_to_hold_no_longer_does(held: str, said: str, now: list[str]) -> None:
    assert core_after(held, said) == now

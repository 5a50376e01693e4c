""""I left Globex" ends "User works at Globex", as "I quit Globex" does: the job stayed
held beside the statement stored as "User: I left Globex". Leaving a place one lives in may
be a trip, so "I left Paris" leaves the home."""

from __future__ import annotations

import pytest
from offline_helpers import core_after


@pytest.mark.parametrize(("held", "left", "now"), [
    ("I work at Globex.", "I left Globex.", []),
    ("I work at Globex.", "I've left Globex last month.", []),
    ("I work at Globex.", "I left my job at Globex in March.", []),
    ("I work at Globex Robotics.", "I just left Globex Robotics.", []),
    ("Tom and I work at Globex.", "I left Globex.", ["Tom works at Globex"]),
])
def test_leaving_a_workplace_ends_the_job(held: str, left: str, now: list[str]) -> None:
    assert core_after(held, left) == now


@pytest.mark.parametrize(("held", "said", "now"), [
    ("I live in Paris.", "I left Paris last week.",
     ["User lives in Paris", "User: I left Paris last week"]),
    ("I work at Globex.", "I left my keys at Globex.",
     ["User works at Globex", "User: I left my keys at Globex"]),
    ("I work at Globex.", "I left Globex at 5pm.",
     ["User works at Globex", "User: I left Globex at 5pm"]),
    ("My wife works at Google.", "I left Google.",
     ["User's wife works at Google", "User: I left Google"]),
])
def test_anything_else_left_keeps_what_is_held(held: str, said: str, now: list[str]) -> None:
    assert core_after(held, said) == now

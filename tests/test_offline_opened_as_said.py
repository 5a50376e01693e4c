"""A statement opened by a marker ("Okay, ...", "Thanks a lot, ...") is stored as it
would be said without it: with its capital, and told of the user rather than quoted."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.openings import opened_as_said


@pytest.mark.parametrize(("said", "stored"), [
    ("Okay, the deploy is at 5pm.", "The deploy is at 5pm"),
    ("Btw the deploy is at 5pm.", "The deploy is at 5pm"),
    ("Thanks a lot, I live in Berlin.", "User lives in Berlin"),
    ("Thank you so much, my wife is Ana.", "User's wife is Ana"),
    ("Many thanks, I live in Berlin.", "User lives in Berlin"),
])
def test_a_marker_opening_a_statement_leaves_it_as_said_alone(said: str, stored: str) -> None:
    assert core_after(said) == [stored]


def test_only_a_word_in_lower_case_takes_the_capital() -> None:
    assert opened_as_said("So, iPhone 15 is my phone") == "iPhone 15 is my phone"
    assert opened_as_said("so, the deploy is at 5pm") == "the deploy is at 5pm"
    assert opened_as_said("The deploy is at 5pm") == "The deploy is at 5pm"

"""Living somewhere is no move there: "I live in Berlin." may be where the user was born,
and says no "User moved to Berlin", as it says no "User moved from Berlin"; a move said
with it still does."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says

TO_BERLIN = "User moved to Berlin"


@pytest.mark.parametrize("text", [
    "I live in Berlin.",
    "I was born in Berlin and live there.",
])
def test_living_there_says_no_move_there(text: str) -> None:
    assert not says(text, TO_BERLIN)


def test_living_there_still_says_where_the_user_lives() -> None:
    assert says("I live in Berlin.", "User lives in Berlin")


@pytest.mark.parametrize("text", [
    "I moved to Berlin.",
    "I relocated to Berlin last year.",
    "I live in Berlin, I moved here last year.",
    "I've lived in Berlin since I moved there in 2020.",
])
def test_a_move_said_still_says_it(text: str) -> None:
    assert says(text, TO_BERLIN)

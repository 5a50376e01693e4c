"""The user said in words for others: "Nobody except me and Tom uses vim." says the user
uses vim, as "... use vim" does, and "Nobody but me and my wife uses vim." the user and
the wife, one subject; so does "I'm someone who uses vim daily.", the "someone" being the
user."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says
from tiermem.memory.text.owners import statements_apart

VIM = "User uses vim"


@pytest.mark.parametrize("message", [
    "Nobody except me and Tom uses vim.",
    "Nobody but me and Anna uses vim.",
    "Nobody except me and Tom use vim.",
    "Nobody but me and my wife uses vim.",
    "No one apart from me and my team uses vim.",
    "I'm someone who uses vim daily.",
    "I am somebody who uses vim.",
    "As someone who uses vim daily, I love it.",
])
def test_the_user_among_others_or_as_someone_says_it(message: str) -> None:
    assert says(message, VIM)


@pytest.mark.parametrize("message", [
    "Anna loves me and Tom uses vim.",
    "Nobody except me and Tom knows Anna uses vim.",
    "Nobody but me and my wife knows Anna uses vim.",
    "Everyone but me and my wife uses vim.",
    "I know someone who uses vim daily.",
    "I'm not someone who uses vim.",
    "I'm friends with someone who uses vim.",
    "Being someone who uses vim is hard.",
    "My wife is someone who uses vim.",
])
def test_others_and_someone_else_still_say_nothing(message: str) -> None:
    assert not says(message, VIM)


def test_nobody_but_me_and_my_wife_is_one_subject() -> None:
    assert statements_apart("Nobody but me and my wife uses vim.") == [
        "Nobody but me and my wife uses vim."]
    assert says("Nobody but me and my wife uses vim.", "User's wife uses vim")

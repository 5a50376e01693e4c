"""A thing the user finds too hard is no thing they use, and what someone of theirs does
after "for me and" is theirs: "Vim is too hard for me and my wife uses vim." says nothing
of "User uses vim", and a note naming it would tell the model a forgotten fact the message
speaks against."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says

USES_VIM = "User uses vim"


@pytest.mark.parametrize("text", [
    "Vim is too hard for me and my wife uses vim.",
    "Vim is too hard for me. My wife uses vim.",
    "Vim is too complicated for me.",
    "Vim is awful for me and my wife uses vim.",
])
def test_too_hard_for_the_user_is_no_use_of_it(text: str) -> None:
    assert not says(text, USES_VIM)


def test_what_the_wife_does_after_for_me_and_is_hers() -> None:
    assert says("Vim is too hard for me and my wife uses vim.", "User's wife uses vim")


@pytest.mark.parametrize("text", [
    "Vim is too hard for me, but I use it daily.",
    "I use vim too.",
    "Nobody except for me and my wife uses vim.",
])
def test_a_use_said_beside_it_still_says_it(text: str) -> None:
    assert says(text, USES_VIM)

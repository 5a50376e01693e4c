""""Tom and his wife work at Globex" names Tom's wife: "My wife no longer works at Globex"
is of the user's wife, another person, and takes nothing from Tom's household. Read as of
Tom's wife, it retired her share and kept Tom's alone."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.joint_shares import of_no_member
from tiermem.memory.text.statements import read_statement


@pytest.mark.parametrize(("joint", "denial"), [
    ("Tom and his wife work at Globex.", "My wife no longer works at Globex."),
    ("Tom and his wife live in Berlin.", "My wife doesn't live in Berlin anymore."),
    ("Ana and her husband work at Globex.", "My husband doesn't work at Globex anymore."),
])
def test_the_users_wife_leaves_the_other_couple_standing(joint: str, denial: str) -> None:
    held = core_after(joint)
    assert all(fact in core_after(joint, denial) for fact in held)


def test_that_persons_own_wife_still_leaves() -> None:
    assert core_after("Tom and his wife work at Globex.",
                      "Tom's wife no longer works at Globex.") == ["Tom works at Globex"]


@pytest.mark.parametrize(("denial", "other"), [
    ("My wife no longer works at Globex.", True),
    ("My sister no longer works at Globex.", False),  # she may be Tom's wife
    ("Tom's wife no longer works at Globex.", False),
])
def test_only_the_same_kin_of_the_user_is_another_person(denial: str, other: bool) -> None:
    about = read_statement(denial).about
    assert of_no_member(about, "Tom and his wife work at Globex") is other

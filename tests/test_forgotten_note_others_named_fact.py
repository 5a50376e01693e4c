"""A fact of someone named is not said by what the user says of themselves or of another
named beside them: "As someone who uses vim daily, I love it." is the user's, and
"Nobody except me and Tom knows Anna uses vim." is Anna's; neither says "Tom uses vim"."""

from __future__ import annotations

from tiermem.memory.ops.fact_said import says
from tiermem.memory.text.others_clauses import opens_as_the_user

TOMS = "Tom uses vim"


def test_the_user_as_someone_says_no_fact_of_toms() -> None:
    assert not says("As someone who uses vim daily, I love it.", TOMS)
    assert not says("As a person who uses vim, I like Tom.", TOMS)
    assert says("As someone who uses vim daily, I love it.", "User uses vim")
    assert opens_as_the_user("As someone who uses vim daily")
    assert not opens_as_the_user("Someone who uses vim daily called")


def test_another_named_beside_tom_is_no_statement_of_his() -> None:
    assert not says("Nobody except me and Tom knows Anna uses vim.", TOMS)
    assert not says("Anna told me that Tom uses vim.", "Anna uses vim")
    assert says("Nobody except me and Tom knows Anna uses vim.", "Anna uses vim")


def test_what_is_said_of_tom_still_says_it() -> None:
    assert says("Nobody except me and Tom uses vim.", TOMS)
    assert says("I know Tom uses vim.", TOMS)
    assert says("Tom, who uses vim, is my friend.", TOMS)
    assert says("I met Tom. He uses vim.", TOMS)

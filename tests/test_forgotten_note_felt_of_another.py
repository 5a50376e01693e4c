"""What the user notices, minds or cares about of someone named is that one's: "I care
that Tom uses vim." and "Nobody but me noticed Tom uses vim." say nothing of "User uses
vim", and a note naming it beside them would tell a fact the message never said."""

from __future__ import annotations

from tiermem.memory.ops.fact_said import says
from tiermem.memory.text.others_clauses import without_others_clauses

VIM = "User uses vim"


def test_what_the_user_feels_of_someone_named_is_theirs() -> None:
    felt = ("I care that Tom uses vim.", "I noticed Tom uses vim.",
            "Nobody except me cares that Tom uses vim.")
    assert [text for text in felt if says(text, VIM)] == []
    assert not says("I like that Anna lives in Berlin.", "User lives in Berlin")


def test_a_clause_of_the_facts_own_name_or_of_the_user_still_says_it() -> None:
    assert says("I'm glad that Anna married me.", "User is married to Anna")
    assert says("I noticed I use vim daily.", VIM)
    assert says("I use that Vim plugin daily.", VIM)
    assert without_others_clauses("I love that Rex is my dog", own={"rex"}) == (
        "I love that Rex is my dog")

"""A subject of several that names the user first ("Me and my team") takes the user in,
as "My team and me" does: the sentence is one statement, not a bare "Me" and one of the
team's, and says the fact of the user as of the others it names."""

from __future__ import annotations

from tiermem.memory.ops.fact_said import says
from tiermem.memory.text.owners import owner_of, statements_apart

TAKEN_IN = {
    "Me and my team use vim.": "User uses vim",
    "Me and my wife live in Berlin.": "User lives in Berlin",
    "I and my wife live in Berlin.": "User lives in Berlin",
    "Me and my wife use vim.": "User's wife uses vim",
}
#: Others' verb after them, a denial, or a wish is still no statement of the user's.
LEFT_OUT = {
    "Me and my wife say my son uses vim.": "User uses vim",
    "Me and my wife don't use vim.": "User uses vim",
    "Me and my wife would love to live in Berlin.": "User lives in Berlin",
    "I live in Munich and my wife lives in Berlin.": "User lives in Berlin",
}


def test_the_user_named_first_among_several_is_one_of_them() -> None:
    assert [said for said, fact in TAKEN_IN.items() if not says(said, fact)] == []
    assert [said for said, fact in LEFT_OUT.items() if says(said, fact)] == []


def test_a_subject_of_several_is_no_statement_apart() -> None:
    assert statements_apart("Me and my team use vim.") == ["Me and my team use vim."]
    assert owner_of("Me and my wife live in Berlin.") is None
    # A statement of the user's own before "and my ..." is still one apart.
    assert statements_apart("I use vim and my wife uses emacs.") == [
        "I use vim", "my wife uses emacs."]

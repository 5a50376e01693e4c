"""An introduction that goes on with "and" and a statement of the speaker's own ("Hey Sam,
I'm Maya and I live in Porto.") names the speaker and stores the statement, as one that
goes on with where the speaker is from does; read whole, it was kept as said and named
no one."""

from __future__ import annotations

from offline_helpers import core_after

_STORED = {
    "Hey Sam, I'm Maya and I live in Porto.": ["User lives in Porto", "User's name is Maya"],
    "Hi, I'm Maya and I live in Porto.": ["User lives in Porto", "User's name is Maya"],
    "Hi Tom, I'm Ana and I'm a nurse.": ["User is a nurse", "User's name is Ana"],
    "Hi, I'm Ana and my son is Tom.": ["User's name is Ana", "User's son is Tom"],
    "Hi Tom, I'm tired and I want to sleep.": ["User: Hi Tom, I'm tired and I want to sleep"],
    # the one greeted by title and name: "Dr Lee" was read as no greeting, and no name kept
    "Hello Dr Lee, I'm Ana.": ["User's name is Ana"],
    "Hi Mrs. Smith, I'm Ana.": ["User's name is Ana"],
}


def test_the_name_and_the_statement_are_each_stored() -> None:
    for said, after in _STORED.items():
        assert core_after(said) == after, said

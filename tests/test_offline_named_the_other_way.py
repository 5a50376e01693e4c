"""A relation named the other way round ("Tom is my boss now") names it as "My boss is Tom
now" does: the boss held before is retired, where both were held as bosses."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.updates import replaces


@pytest.mark.parametrize(("before", "said", "kept"), [
    ("My boss is Ana.", "Tom is my boss now.", ["Tom is User's boss"]),
    ("Ana is my boss.", "Tom is my boss now.", ["Tom is User's boss"]),
    ("Ana is my boss.", "My boss is Tom now.", ["User's boss is Tom"]),
    ("My boss is Ana.", "Tom is my new boss.", ["Tom is User's new boss"]),
    ("My boss Ana works at Acme.", "Tom is my boss now.", ["Ana works at Acme",
                                                            "Tom is User's boss"]),
    ("I work at Globex.", "Acme is my employer now.", ["Acme is User's employer"]),
])
def test_a_relation_named_the_other_way_round_retires_the_one_held(
        before: str, said: str, kept: list[str]) -> None:
    assert core_after(before, said) == kept


@pytest.mark.parametrize(("before", "said"), [
    # one more friend, or brother, said plainly, is one more
    ("Ana is my friend.", "Tom is my friend."),
    ("Sam is my brother.", "Tom is my brother."),
])
def test_one_more_named_the_other_way_round_stays_beside(before: str, said: str) -> None:
    assert len(core_after(before, said)) == 2


def test_a_naming_said_again_the_other_way_round_replaces_nothing() -> None:
    assert not replaces("Ana is User's boss", "User's boss is Ana", None)


@pytest.mark.parametrize(("before", "said", "kept"), [
    # one more of several, said "now", is one more: the friend held stays
    ("Ana is my friend.", "Tom is my friend now.", ["Ana is User's friend",
                                                    "Tom is User's friend"]),
    ("My brother is Sam.", "Tom is my brother now.", ["Tom is User's brother",
                                                      "User's brother is Sam"]),
    ("Sam is my dog.", "Rex is my dog now.", ["Rex is User's dog", "Sam is User's dog"]),
    ("My mentor is Sam.", "Tom is my manager now and Ana is my mentor.",
     ["Ana is User's mentor", "Tom is User's manager", "User's mentor is Sam"]),
    # a relation not known to be held by one at a time: a second client is one more
    ("Acme is my client.", "Globex is my client now.", ["Acme is User's client",
                                                        "Globex is User's client"]),
    ("Tom is my team lead.", "Ana is my team lead now.", ["Ana is User's team lead",
                                                          "Tom is User's team lead"]),
    ("Tom is my coach.", "Ana is my coach now.", ["Ana is User's coach",
                                                  "Tom is User's coach"]),
    # one held at a time is named anew
    ("Acme is my employer.", "Globex is my employer now.", ["Globex is User's employer"]),
    ("Tom is my landlord.", "Ana is my landlord now.", ["Ana is User's landlord"]),
    ("Ana is my wife.", "Maria is my wife now.", ["Maria is User's wife"]),
    # one who serves the user, or a stepfather: both were kept, the old one as if still so
    ("Tom is my accountant.", "Ana is my accountant now.", ["Ana is User's accountant"]),
    ("Acme is my insurer.", "Globex is my insurer now.", ["Globex is User's insurer"]),
    ("Tom is my stepdad.", "Sam is my stepdad now.", ["Sam is User's stepdad"]),
    # Tom's boss no more: it was kept beside, both said of Tom
    ("Tom is my boss.", "Tom is my ex-boss now.", ["Tom is User's ex-boss"]),
    ("Tom is my boss.", "Tom is my former boss now.", ["Tom is User's former boss"]),
])
def test_a_naming_the_other_way_round_retires_only_one_held_alone(
        before: str, said: str, kept: list[str]) -> None:
    assert core_after(before, said) == kept

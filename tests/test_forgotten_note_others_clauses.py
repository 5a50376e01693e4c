"""A clause of a user's sentence about someone else is theirs: "I visited Anna, who lives
in Berlin." says nothing of where the user lives, and a note naming "User lives in Berlin"
beside it would tell a fact the message never said; nor does "My wife visited Anna, who
lives in Berlin." say where the wife lives."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says
from tiermem.memory.text.others_clauses import without_others_clauses

VIM = "User uses vim"


def test_a_clause_about_someone_named_before_it_is_theirs() -> None:
    assert not says("I visited Anna, who lives in Berlin.", "User lives in Berlin")
    assert not says("Me and my wife have a friend who uses vim.", VIM)
    assert not says("I know a guy who works at Acme.", "User works at Acme")
    assert not says("I have a friend that works at Acme.", "User works at Acme")


def test_a_clause_about_someone_is_theirs_whatever_form_its_verb_takes() -> None:
    assert not says("I have a friend that live in Berlin.", "User lives in Berlin")
    assert not says("I know a guy that work at Acme.", "User works at Acme")
    assert not says("I have a sister that use vim.", VIM)
    # What the user tells someone is no clause of theirs.
    assert says("I told my sister that Berlin is where I live.", "User lives in Berlin")
    assert says("I told my sister that the flat in Berlin is where I live.",
                "User lives in Berlin")
    # Nor is what the user tells when a few words come before their own subject.
    assert says("I told my mom that honestly I use vim.", VIM)
    assert says("I told my friend that since 2020, I live in Berlin.", "User lives in Berlin")
    assert says("I told my boss that at work we use vim.", VIM)
    assert not says("I have a friend that honestly live in Berlin.", "User lives in Berlin")


def test_what_the_user_knows_of_someone_named_is_theirs() -> None:
    assert not says("Nobody but me knows Anna uses vim.", VIM)
    assert not says("Nobody but me knows Anna lives in Berlin.", "User lives in Berlin")


def test_a_clause_of_the_user_still_says_it() -> None:
    assert says("I'm a developer who uses vim.", VIM)
    assert says("I'm an engineer who works at Acme.", "User works at Acme")
    assert says("I know a guy who works at Acme and I work there too.", "User works at Acme")
    assert says("Everyone knows I use vim.", VIM)
    assert says("I use that vim plugin daily.", VIM)
    assert without_others_clauses("the company that I work at") == "the company that I work at"


def test_a_clause_about_someone_else_gives_the_user_nothing_of_theirs() -> None:
    dog = "User has a dog named Rex"
    assert not says("I know a guy who has a dog named Rex.", dog)
    assert not says("I visited Anna, who has a dog named Rex.", dog)
    assert not says("Nobody but me knows Anna has a dog named Rex.", dog)
    assert not says("I know a guy who is married to Anna.", "User is married to Anna")
    assert says("I have a dog named Rex, who loves walks.", dog)
    assert says("I married Anna, who is great.", "User is married to Anna")


#: Where someone else lives, said beside the user's wife.
ANOTHERS_HOME_BY_MY_WIFE = ("My wife visited Anna, who lives in Berlin.",
                            "My wife knows Anna lives in Berlin.",
                            "My wife has a friend that lives in Berlin.",
                            "Nobody but me and my wife knows Anna lives in Berlin.")


@pytest.mark.parametrize("text", ANOTHERS_HOME_BY_MY_WIFE)
def test_a_clause_about_someone_else_is_no_fact_of_a_relation(text: str) -> None:
    assert not says(text, "User's wife lives in Berlin")


def test_a_relation_still_says_what_is_theirs() -> None:
    assert says("My wife, who lives in Berlin, is great.", "User's wife lives in Berlin")
    assert says("My wife loves Anna, who works at Acme, and she works there too.",
                "User's wife works at Acme")

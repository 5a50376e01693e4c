"""A "who" clause right after the user, or after a lead-in the user is, is the user's:
"I, who live in Berlin, love it" says "User lives in Berlin", while "I visited Anna, who
lives in Berlin." says nothing of the user."""

from __future__ import annotations

from tiermem.memory.ops.fact_said import says


def test_a_clause_right_after_the_user_is_the_users() -> None:
    assert says("I, who live in Berlin, love it.", "User lives in Berlin")
    assert not says("I visited Anna, who lives in Berlin.", "User lives in Berlin")


def test_a_clause_of_a_lead_in_the_user_is_is_the_users() -> None:
    assert says("As a person who uses vim, I like plugins.", "User uses vim")
    assert says("As an engineer who works at Acme, I write tests.", "User works at Acme")
    assert not says("I met a person who uses vim.", "User uses vim")

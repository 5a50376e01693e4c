"""A bare withdrawal ("I don't anymore") ends the last thing the user just said, when it
is of themselves and fits the verb, and nothing of anyone else's."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.own_denials import withdrawn


@pytest.mark.parametrize("messages", [
    ("I smoke.", "I don't anymore."),
    ("I like tea.", "Actually, I don't any longer."),
    ("I like tea. I don't anymore.",),
])
def test_a_bare_withdrawal_ends_the_users_last_doing(messages: tuple[str, ...]) -> None:
    assert core_after(*messages) == []


@pytest.mark.parametrize(("messages", "kept"), [
    # another's: the user never said they smoke
    (("Tom smokes.", "I don't anymore."), ["Tom smokes"]),
    # said before the last message, it is not what the withdrawal follows
    (("I smoke.", "I live in Porto.", "I'm not anymore."),
     ["User lives in Porto", "User: I smoke"]),
])
def test_a_bare_withdrawal_leaves_what_it_does_not_follow(
        messages: tuple[str, ...], kept: list[str]) -> None:
    assert core_after(*messages) == kept


@pytest.mark.parametrize(("sentence", "told", "ended"), [
    ("I don't anymore.", ["User smokes"], ["User smokes"]),
    ("I'm not anymore.", ["User is vegan"], ["User is vegan"]),
    ("I don't anymore.", ["User is vegan"], []),  # a being, not a doing
    ("I don't anymore.", ["User's dog smokes"], []),
    ("I don't anymore.", ["User likes tea", "User smokes"], ["User smokes"]),
    ("I don't anymore.", ["User smokes", "User's email is maya@example.com"], []),
    ("I don't like it anymore.", ["User likes tea"], []),  # names what it ends
])
def test_withdrawn_is_the_one_fact_of_the_user_that_fits(
        sentence: str, told: list[str], ended: list[str]) -> None:
    assert withdrawn(sentence, told) == ended


@pytest.mark.parametrize(("messages", "kept"), [
    # read whole, it was stored as "User doesn't anymore, but I vape" and kept the smoking
    (("I smoke.", "I don't anymore, but I vape."), ["User: I vape"]),
    (("Tom smokes.", "I don't anymore, I vape now."), ["Tom smokes", "User: I vape"]),
    # read whole, it was stored as "User likes tea"
    (("I like tea but I don't anymore.",), []),
])
def test_a_bare_withdrawal_joined_to_another_clause_is_read_apart(
        messages: tuple[str, ...], kept: list[str]) -> None:
    assert core_after(*messages) == kept

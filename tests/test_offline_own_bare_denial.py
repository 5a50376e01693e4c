"""The user's bare "I'm not" or "I don't" after what another is or does denies that of
the user, instead of being dropped as a fragment."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.doings import doing_of


@pytest.mark.parametrize(("messages", "kept"), [
    (("My wife is a nurse. I'm not.",), ["User is not a nurse", "User's wife is a nurse"]),
    (("My wife is a nurse. I am not.",), ["User is not a nurse", "User's wife is a nurse"]),
    (("My wife is a nurse.", "I'm not."), ["User is not a nurse", "User's wife is a nurse"]),
    (("Ana is a doctor. I'm not.",), ["Ana is a doctor", "User is not a doctor"]),
    (("My wife likes jazz. I don't.",), ["User doesn't like jazz", "User's wife likes jazz"]),
    (("Tom drinks coffee. I do not.",), ["Tom drinks coffee", "User doesn't drink coffee"]),
    # how sure or how often another is so is not denied
    (("Tom is still vegan. I'm not.",), ["Tom is still vegan", "User is not vegan"]),
    (("Tom is also a nurse. I'm not.",), ["Tom is also a nurse", "User is not a nurse"]),
    (("Tom still smokes. I don't.",), ["Tom still smokes", "User doesn't smoke"]),
    (("Tom sometimes smokes. I don't.",), ["Tom sometimes smokes", "User doesn't smoke"]),
])
def test_a_bare_denial_of_the_user_after_anothers_is_told_in_full(
        messages: tuple[str, ...], kept: list[str]) -> None:
    assert core_after(*messages) == kept


@pytest.mark.parametrize(("messages", "kept"), [
    # told of the user, "my boss" and "her job" would point elsewhere
    (("Tom is my boss. I'm not.",), ["Tom is User's boss"]),
    (("My wife loves her job. I don't.",), ["User's wife loves her job"]),
    # the user's own statement is no other's to deny
    (("I'm vegan. I'm not.",), ["User is vegan"]),
    (("My name is Maya. I'm not.",), ["User's name is Maya"]),
    # "not never late" would say the opposite
    (("Tom is never late. I'm not.",), ["Tom is never late"]),
    (("Tom is rarely late. I'm not.",), ["Tom is rarely late"]),
    # himself, ours: Tom, the user's own
    (("Tom is proud of himself. I'm not.",), ["Tom is proud of himself"]),
    (("Tom loves himself. I don't.",), ["Tom loves himself"]),
    (("Tom is a friend of ours. I'm not.",), ["Tom is a friend of ours"]),
    # what a thing is or does is none of the user's
    (("Tom's car is red. I'm not.",), ["Tom's car is red"]),
    (("It works. I don't.",), ["It works"]),
])
def test_a_bare_denial_that_cannot_be_told_is_left(messages: tuple[str, ...],
                                                   kept: list[str]) -> None:
    assert core_after(*messages) == kept


def test_my_opening_a_statement_is_no_name() -> None:
    # "My" was read as a name and "parents" as its verb: "parent live in Lisbon"
    assert doing_of("My parents live in Lisbon") is None
    assert doing_of("My wife jogs") == ("", "jog")

"""A name inside a fact ("Pine" of "3 Pine St.") meets a request to forget only as the same
word: by stem, "Pine" was the "pin" of "Forget my PIN", which moved the address out of
core, and a shop's "Home" was an address."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.retractions import retracted

ADDRESS = "User's address is 3 Pine St."


@pytest.mark.parametrize(("said", "forget", "now"), [
    ("My address is 3 Pine St.", "Forget my PIN.", [ADDRESS]),
    ("My address is 3 Pine St.", "Forget my pin.", [ADDRESS]),
    ("My address is 3 Pine St.", "Forget my email address and my PIN.", [ADDRESS]),
    ("I live on Pine Street.", "Forget my pin.", ["User lives on Pine Street"]),
    ("My address is 3 Pine St. My PIN is 1234.", "Forget my PIN.", [ADDRESS]),
    ("I work at Home Depot.", "Forget my address.", ["User works at Home Depot"]),
])
def test_a_name_is_no_thing_that_shares_its_stem(said: str, forget: str,
                                                  now: list[str]) -> None:
    assert core_after(said, forget) == now


@pytest.mark.parametrize(("said", "forget"), [
    ("My address is 3 Pine St.", "Forget my address."),
    ("My PIN is 1234.", "Forget my PIN."),
    ("I live on Pine Street.", "Forget Pine Street."),
    ("I live on Pine Street.", "I no longer live on Pine Street."),
    ("My sister is Rose.", "Forget Rose."),
])
def test_what_is_named_is_still_forgotten(said: str, forget: str) -> None:
    assert core_after(said, forget) == []


def test_without_the_words_said_a_name_matches_by_stem_as_before() -> None:
    assert retracted(frozenset({"pin"}), [ADDRESS]) == [ADDRESS]
    assert retracted(frozenset({"pin"}), [ADDRESS], every=True, said="Forget my PIN.") == []


@pytest.mark.parametrize(("said", "forget"), [
    ("My Car Keys are in the drawer.", "Forget where my car key is."),
    ("I go to the Lakers games.", "Forget the Laker games."),
    ("My Phone Number is 555-0100.", "Forget my phone numbers."),
])
def test_a_name_meets_the_same_word_in_the_singular_or_plural(said: str, forget: str) -> None:
    assert core_after(said, forget) == []


@pytest.mark.parametrize(("said", "forget", "now"), [
    ("I live on Pines Road.", "Forget my pin.", ["User lives on Pines Road"]),
    ("My address is 3 Pine St.", "Forget my pins.", [ADDRESS]),
])
def test_a_plural_is_no_way_around_the_whole_word(said: str, forget: str,
                                                  now: list[str]) -> None:
    assert core_after(said, forget) == now

"""A verb joined straight to one told of the user ("I live in Lisbon and work and study
there") is told of the user too, "studies", rather than left in the first person."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.person import third_person


@pytest.mark.parametrize(("said", "stored"), [
    ("I live in Lisbon and work and study there.",
     "User lives in Lisbon and works and studies there"),
    ("I work and study in Lisbon.", "User works and studies in Lisbon"),
    ("I work and teach at Acme.", "User works and teaches at Acme"),
])
def test_a_joined_verb_is_told_of_the_user(said: str, stored: str) -> None:
    assert core_after(said) == [stored]


def test_a_second_thing_is_no_verb() -> None:
    assert third_person("I like tea and coffee", "User") == "User likes tea and coffee"
    assert (third_person("I work and go to Acme on Fridays", "User")
            == "User works and goes to Acme on Fridays")
    assert third_person("I live and work there", "User") == "User lives and works there"


@pytest.mark.parametrize(("said", "stored"), [
    ("I live and work in Lisbon.", ["User lives in Lisbon", "User works in Lisbon"]),
    ("My wife lives and works in Porto.",
     ["User's wife lives in Porto", "User's wife works in Porto"]),
    ("I love and hate Paris.", ["User loves Paris", "User hates Paris"]),
])
def test_a_verb_ending_its_part_shares_what_the_next_says(said: str, stored: list[str]) -> None:
    # cut off at its verb, "User lives" would be stored saying nothing
    assert sorted(core_after(said)) == sorted(stored)


def test_a_move_said_with_a_shared_place_ends_the_old_home() -> None:
    assert sorted(core_after("I live in Porto.", "I live and work in Lisbon.")) == [
        "User lives in Lisbon", "User works in Lisbon"]


@pytest.mark.parametrize(("said", "stored"), [
    ("My wife works and I live in Lisbon.", ["User lives in Lisbon", "User's wife works"]),
    ("I work and my wife lives in Porto.", ["User works", "User's wife lives in Porto"]),
    ("I work, and I live in Porto.", ["User lives in Porto", "User works"]),
])
def test_a_clause_with_its_own_subject_shares_nothing_before_it(
        said: str, stored: list[str]) -> None:
    # "in Lisbon" is where the user lives; told of the wife's work too, it would be invented
    assert sorted(core_after(said)) == sorted(stored)


def test_a_home_said_with_another_verb_of_the_place_ends_on_a_move() -> None:
    # joined as "User lives and studies in Lisbon", a move left the old home in core
    assert core_after("I live and study in Lisbon.") == [
        "User lives in Lisbon", "User studies in Lisbon"]
    assert core_after("I live and study in Lisbon.", "I live in Oslo now.") == [
        "User lives in Oslo", "User studies in Lisbon"]

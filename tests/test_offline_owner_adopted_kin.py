"""Taking one in ends a subject only after the one who does it: "My sister adopted a
puppy" is the sister's, but "my adopted son" is the son, and "User's adopted son lives
in Berlin" answers "Where does my son live?" rather than reading as the user's home."""

from __future__ import annotations

import pytest

from tiermem.memory.text.asked_owners import about_another
from tiermem.memory.text.owners import may_be_same_kin, owner_of


@pytest.mark.parametrize(("text", "relations", "name"), [
    ("My adopted son lives in Berlin.", ("son",), None),
    ("My adopted son Tom lives in Berlin.", ("son",), "tom"),
    ("User's adopted daughter is called Mia.", ("daughter",), None),
    ("My newly adopted dog is called Rex.", ("dog",), None),
    ("My rescued dog is called Rex.", ("dog",), None),
    ("My son's adopted dog is called Rex.", ("son", "dog"), None),
    ("My son's newly bought car is red.", ("son",), None),
])
def test_taking_in_before_someone_describes_them(
        text: str, relations: tuple[str, ...], name: str | None) -> None:
    own = owner_of(text)
    assert own is not None and own.user
    assert (own.relations, own.name) == (relations, name)


@pytest.mark.parametrize(("text", "relations"), [
    ("My sister adopted a puppy.", ("sister",)),
    ("My sister recently adopted a puppy.", ("sister",)),
    ("My brother Tom got a new girlfriend.", ("brother",)),
])
def test_taking_in_after_someone_ends_the_subject(
        text: str, relations: tuple[str, ...]) -> None:
    own = owner_of(text)
    assert own is not None and own.relations == relations


def test_a_named_one_taking_in_is_them() -> None:
    own = owner_of("Tom got a new job at Acme.")
    assert own is not None and not own.user and own.name == "tom"


def test_the_adopted_son_answers_of_the_son_not_the_user() -> None:
    fact = "User's adopted son lives in Berlin"
    assert not about_another("Where does my son live?", fact)
    assert about_another("Where do I live?", fact)


def test_the_adopted_son_is_the_son_who_moves() -> None:
    assert may_be_same_kin("User's adopted son lives in Berlin",
                           "User's adopted son lives in Munich")
    assert not may_be_same_kin("User's adopted son lives in Berlin",
                               "User's son lives in Munich")

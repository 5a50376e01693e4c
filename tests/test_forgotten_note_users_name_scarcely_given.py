"""A name next to no one calls the user is none of theirs: "Barely anyone calls me Tom."
or "Scarcely anyone calls me Tom." says no forgotten "User is Tom", as "Hardly anyone
calls me Tom." says none; read as everyone's calling, it noted a name the user said they
are seldom called. "My sister scarcely adopted a puppy." is no puppy of hers either."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says
from tiermem.memory.text.mine import kinds_had


@pytest.mark.parametrize("text", [
    "Barely anyone calls me Tom.", "Scarcely anyone calls me Tom.",
    "Hardly anyone calls me Tom.", "My friends barely call me Tom.",
    "People scarcely ever call me Tom.",
])
@pytest.mark.parametrize("fact", ["User is Tom", "User is named Tom", "User is called Tom"])
def test_a_name_scarcely_given_says_none(text: str, fact: str) -> None:
    assert not says(text, fact)


@pytest.mark.parametrize("text", [
    "Everyone calls me Tom.", "Almost everyone calls me Tom.", "My friends call me Tom.",
])
def test_a_name_others_call_the_user_still_says_it(text: str) -> None:
    assert says(text, "User is called Tom")


@pytest.mark.parametrize(("text", "had"), [
    ("My sister scarcely adopted a puppy.", set()),
    ("My sister barely adopted a puppy.", set()),
    ("My sister adopted a puppy.", {"dog"}),
])
def test_the_same_words_say_someone_of_the_users_has_none(text: str, had: set[str]) -> None:
    assert kinds_had(text, {"dog"}, of_kin=True) == had
